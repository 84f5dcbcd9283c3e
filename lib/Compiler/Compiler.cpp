//===- Compiler.cpp - tile kernels to PTX + manifest, in process -----------===//
//
// Part of tile-mlir, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "tile/Compiler/Compiler.h"
#include "NVPTXCodegen.h"
#include "tile/Pipeline/Manifest.h"
#include "tile/Pipeline/Pipeline.h"
#include "tile/Registration/Registration.h"
#include "tile/Target/CUDA/Chips.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Pass/PassInstrumentation.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/Config/llvm-config.h"
#include "llvm/Support/ErrorHandling.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

#include <chrono>
#include <dlfcn.h>
#include <mutex>

using namespace mlir;
using namespace tile;

std::string tile::findPtxas() {
  if (llvm::ErrorOr<std::string> found = llvm::sys::findProgramByName("ptxas"))
    return *found;
  SmallVector<StringRef> dirs;
  std::string cudaHome;
  if (const char *home = std::getenv("CUDA_HOME"))
    cudaHome = (StringRef(home) + "/bin").str();
  if (!cudaHome.empty())
    dirs.push_back(cudaHome);
  dirs.push_back("/usr/local/cuda/bin");
  if (llvm::ErrorOr<std::string> found =
          llvm::sys::findProgramByName("ptxas", dirs))
    return *found;
  return "";
}

namespace {

constexpr llvm::StringLiteral kDefaultChip = "sm_100a";

double millisecondsSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double, std::milli>(
             std::chrono::steady_clock::now() - start)
      .count();
}

/// Sets the chip of the module's #nvvm.target (adding one when it has none)
/// and checks its PTX-version feature.
LogicalResult retarget(gpu::GPUModuleOp module, StringRef chipOverride) {
  MLIRContext *ctx = module.getContext();
  SmallVector<Attribute> targets;
  NVVM::NVVMTargetAttr nvvm;
  if (ArrayAttr existing = module.getTargetsAttr())
    for (Attribute target : existing) {
      if (auto t = dyn_cast<NVVM::NVVMTargetAttr>(target); t && !nvvm)
        nvvm = t;
      else
        targets.push_back(target);
    }
  std::string chip = !chipOverride.empty() ? chipOverride.str()
                     : nvvm                ? nvvm.getChip().str()
                                           : kDefaultChip.str();
  // The chip and PTX version are checked (and a version chosen where none
  // is given) by --tile-check-target; an unknown chip is refused here too,
  // before anything else reads it.
  if (tile::OrReason<tile::cuda::ChipInfo> known = tile::cuda::lookupChip(chip);
      !known)
    return module.emitError() << known.reason();
  if (!nvvm)
    nvvm = NVVM::NVVMTargetAttr::get(ctx, /*optLevel=*/2, "nvptx64-nvidia-cuda",
                                     chip);
  else if (nvvm.getChip() != chip)
    nvvm = NVVM::NVVMTargetAttr::get(ctx, nvvm.getO(), nvvm.getTriple(), chip,
                                     nvvm.getFeatures(), nvvm.getFlags(),
                                     nvvm.getLink());
  targets.insert(targets.begin(), nvvm);
  module.setTargetsAttr(ArrayAttr::get(ctx, targets));
  return success();
}

/// Types the LLVM translation or the NVPTX backend cannot lower (LLVM
/// crashes on them instead of reporting an error): any leaf type without an
/// LLVM IR counterpart (`complex<f32>`, `index`, tensors, other dialects'
/// types: `LLVM::isCompatibleType`), x87/quad/PPC floats, and the small MLIR
/// float types (the tile lowering passes them as integers; hand-written
/// LLVM dialect ops must too). Aggregates are judged by their members. In a
/// builtin function type (the source signature a kernel records for its
/// manifest: memrefs, tile buffers) only the float rule applies.
std::optional<Type> nvptxCannotLower(Type type, bool llvmLeaves = true) {
  if (auto f = dyn_cast<FloatType>(type))
    return f.isF80() || f.isF128() || f.getWidth() < 16
               ? std::optional<Type>(type)
               : std::nullopt;
  SmallVector<Type> inner;
  if (auto vector = dyn_cast<VectorType>(type))
    inner.push_back(vector.getElementType());
  else if (auto array = dyn_cast<LLVM::LLVMArrayType>(type))
    inner.push_back(array.getElementType());
  else if (auto strct = dyn_cast<LLVM::LLVMStructType>(type)) {
    if (!strct.isIdentified())
      llvm::append_range(inner, strct.getBody());
  } else if (auto fn = dyn_cast<LLVM::LLVMFunctionType>(type)) {
    llvm::append_range(inner, fn.getParams());
    inner.push_back(fn.getReturnType());
  } else if (auto fn = dyn_cast<FunctionType>(type)) {
    llvm::append_range(inner, fn.getInputs());
    llvm::append_range(inner, fn.getResults());
    llvmLeaves = false;
  } else if (llvmLeaves && !LLVM::isCompatibleType(type)) {
    return type;
  }
  for (Type t : inner)
    if (std::optional<Type> bad = nvptxCannotLower(t, llvmLeaves))
      return bad;
  return std::nullopt;
}

/// Every op inside the lowered gpu.module whose operands, results, block
/// arguments or type attributes (function signatures, global, alloca and
/// GEP element types) hold such a type is an error on the op.
LogicalResult checkLowerableTypes(gpu::GPUModuleOp module) {
  bool ok = true;
  module.walk([&](Operation *op) {
    SmallVector<Type> types(op->getOperandTypes());
    llvm::append_range(types, op->getResultTypes());
    for (Region &region : op->getRegions())
      for (Block &block : region)
        llvm::append_range(types, block.getArgumentTypes());
    // NVVM ops name formats with type attributes (a cvt's destination
    // `f8E4M3FN`): the intrinsic chosen from it, not a value of that type.
    if (!isa<NVVM::NVVMDialect>(op->getDialect()))
      for (NamedAttribute attr : op->getAttrs())
        if (auto type = dyn_cast<TypeAttr>(attr.getValue()))
          types.push_back(type.getValue());
    for (Type type : types)
      if (std::optional<Type> bad = nvptxCannotLower(type)) {
        if (isa<FloatType>(*bad))
          op->emitError() << "the NVPTX backend cannot lower values of type "
                          << *bad << "; use an integer type of the same width";
        else
          op->emitError() << "LLVM IR has no type for " << *bad
                          << " (after lowering, the kernel's ops use "
                             "LLVM-compatible types only: integers, floats, "
                             "pointers, vectors, arrays, structs)";
        ok = false;
        return;
      }
  });
  return success(ok);
}

/// The kernels being compiled, for the fatal-error handler.
std::string kernelsInFlight;

/// Turns an LLVM fatal error (something the checks before code generation
/// did not foresee) into an error naming the kernels, without an abort.
void reportBackendFailure(void *, const char *reason, bool) {
  llvm::errs() << "tile-compile: error: the NVPTX backend failed on "
               << (kernelsInFlight.empty() ? "the module" : kernelsInFlight)
               << ": " << reason << "\n";
  std::_Exit(1);
}

/// The install/remove entry points of libLLVM's own fatal-error handler,
/// when LLVM is linked as libLLVM.so (TILE_LINK_LLVM_STATIC=OFF): the NVPTX
/// backend then lives in libLLVM.so and reports through that library's
/// handler; this executable also links LLVMSupport statically (through the
/// MLIR-free libraries), whose handler the backend never consults. Linked
/// statically, there is one handler and no libLLVM.so to find.
struct BackendErrorHandler {
  using Install = void (*)(llvm::fatal_error_handler_t, void *);
  using Remove = void (*)();
  Install install = nullptr;
  Remove remove = nullptr;

  BackendErrorHandler() {
    std::string soname = "libLLVM.so." + std::to_string(LLVM_VERSION_MAJOR) +
                         "." + std::to_string(LLVM_VERSION_MINOR);
    void *llvm = dlopen(soname.c_str(), RTLD_LAZY | RTLD_NOLOAD);
    if (!llvm)
      return;
    install = reinterpret_cast<Install>(dlsym(
        llvm, "_ZN4llvm27install_fatal_error_handlerEPFvPvPKcbES0_"));
    remove = reinterpret_cast<Remove>(
        dlsym(llvm, "_ZN4llvm26remove_fatal_error_handlerEv"));
  }
  /// Both copies report through `reportBackendFailure` while `run` runs.
  template <typename Fn> auto around(Fn run) {
    llvm::install_fatal_error_handler(reportBackendFailure);
    if (install && remove)
      install(reportBackendFailure, nullptr);
    auto result = run();
    if (install && remove)
      remove();
    llvm::remove_fatal_error_handler();
    return result;
  }
};


/// `ptx` through ptxas for `chip` into `cubin`; an error message otherwise.
std::string assemble(StringRef ptx, StringRef chip, std::vector<char> &cubin) {
  std::string ptxas = findPtxas();
  if (ptxas.empty())
    return "a cubin needs ptxas (searched PATH, $CUDA_HOME/bin, "
           "/usr/local/cuda/bin)";
  SmallString<128> ptxFile, cubinFile;
  if (llvm::sys::fs::createTemporaryFile("tile", "ptx", ptxFile) ||
      llvm::sys::fs::createTemporaryFile("tile", "cubin", cubinFile))
    return "cannot create a temporary file for ptxas";
  std::string result;
  {
    std::error_code ec;
    llvm::raw_fd_ostream os(ptxFile, ec);
    os << ptx;
  }
  std::string arch = "-arch=" + chip.str();
  SmallVector<StringRef> args = {ptxas, arch, ptxFile, "-o", cubinFile};
  std::string error;
  int rc = llvm::sys::ExecuteAndWait(ptxas, args, std::nullopt, {}, 0, 0,
                                     &error);
  if (rc != 0) {
    result = "ptxas " + arch + " failed (exit " + std::to_string(rc) + ")" +
             (error.empty() ? "" : ": " + error);
  } else if (auto buffer = llvm::MemoryBuffer::getFile(cubinFile)) {
    cubin.assign((*buffer)->getBufferStart(), (*buffer)->getBufferEnd());
  } else {
    result = "cannot read ptxas's output";
  }
  llvm::sys::fs::remove(ptxFile);
  llvm::sys::fs::remove(cubinFile);
  return result;
}

/// Formats a diagnostic without a source buffer (a module built through
/// the API): `loc: severity: message`, notes indented below.
void printDiagnostic(Diagnostic &diag, llvm::raw_ostream &os) {
  auto severity = [](DiagnosticSeverity s) {
    switch (s) {
    case DiagnosticSeverity::Error:
      return "error";
    case DiagnosticSeverity::Warning:
      return "warning";
    case DiagnosticSeverity::Note:
      return "note";
    case DiagnosticSeverity::Remark:
      return "remark";
    }
    return "error";
  };
  os << diag.getLocation() << ": " << severity(diag.getSeverity()) << ": "
     << diag.str() << "\n";
  for (Diagnostic &note : diag.getNotes())
    os << note.getLocation() << ": note: " << note.str() << "\n";
}

/// A remark the caller did not ask for (neither `explain` nor `remarks`).
bool isUnwantedRemark(const Diagnostic &diag, const CompileOptions &options) {
  return diag.getSeverity() == DiagnosticSeverity::Remark &&
         !options.explain && !options.remarks;
}

/// Time spent in the selection half of the tile passes (everything before
/// the shared-memory placement), accumulated per run.
struct SelectionTimer : public PassInstrumentation {
  double &total;
  std::chrono::steady_clock::time_point start;
  explicit SelectionTimer(double &total) : total(total) {}
  static bool isSelection(Pass *pass) {
    StringRef arg = pass->getArgument();
    return arg == "tile-verify-kernels" || arg == "tile-select-variants" ||
           arg == "tile-check-target";
  }
  void runBeforePass(Pass *pass, Operation *) override {
    if (isSelection(pass))
      start = std::chrono::steady_clock::now();
  }
  void runAfterPass(Pass *pass, Operation *) override {
    if (isSelection(pass))
      total += millisecondsSince(start);
  }
  void runAfterPassFailed(Pass *pass, Operation *op) override {
    runAfterPass(pass, op);
  }
};

/// Runs `pm` on `module`, then verifies the result once. Verifying after
/// every pass (MLIR's default) walked the whole module, symbol tables
/// included, some fifteen times per compile, longer than most of the
/// passes took; builds with assertions still verify after each pass, and
/// tile-opt always does, to name the pass that broke the IR.
LogicalResult runAndVerify(PassManager &pm, ModuleOp module) {
#ifdef NDEBUG
  pm.enableVerifier(false);
#endif
  if (failed(pm.run(module)))
    return failure();
  return verify(module);
}

} // namespace

struct Compiler::Impl {
  // Without a thread pool: one gpu.module's passes and verifier have
  // nothing to run in parallel, and handing work to threads only added
  // wake-ups.
  Impl()
      : owned(std::make_unique<MLIRContext>(registry(),
                                            MLIRContext::Threading::DISABLED)),
        context(*owned) {
    // Diagnostics point at the source; the op dump would repeat it.
    context.printOpOnDiagnostic(false);
    loadWhatTheDriverCreates();
  }
  explicit Impl(MLIRContext &external) : context(external) {
    loadWhatTheDriverCreates();
  }
  /// The driver builds #nvvm.target attributes and gpu/llvm ops itself;
  /// every other dialect loads when the input or a pass first needs it.
  void loadWhatTheDriverCreates() {
    context.loadDialect<gpu::GPUDialect, LLVM::LLVMDialect,
                        NVVM::NVVMDialect>();
  }
  static DialectRegistry registry() {
    DialectRegistry registry;
    tile::registerAllDialects(registry);
    return registry;
  }
  /// `verified`: the module was verified as it is (parsed).
  CompileResult compile(ModuleOp module, const CompileOptions &options,
                        bool verified);
  /// The upstream lowering, built once: it has no options, and a pass
  /// manager built per compile set up its pattern sets (canonicalize's is
  /// every dialect's) every time.
  PassManager &upstreamLowering() {
    if (!upstream) {
      upstream = std::make_unique<PassManager>(&context);
      tile::buildUpstreamLoweringPipeline(*upstream);
    }
    return *upstream;
  }
  std::unique_ptr<MLIRContext> owned;
  MLIRContext &context;
  std::unique_ptr<PassManager> upstream;
};

Compiler::Compiler() : impl(std::make_unique<Impl>()) {
  tile::registerBuiltinVariantsOnce();
}

Compiler::Compiler(MLIRContext &context)
    : impl(std::make_unique<Impl>(context)) {
  tile::registerBuiltinVariantsOnce();
}

Compiler::~Compiler() = default;

MLIRContext &Compiler::context() { return impl->context; }

CompileResult Compiler::compileSource(StringRef source,
                                      const CompileOptions &options,
                                      StringRef bufferName) {
  CompileResult result;
  llvm::raw_string_ostream diagnostics(result.diagnostics);
  auto start = std::chrono::steady_clock::now();
  auto sourceMgr = std::make_shared<llvm::SourceMgr>();
  sourceMgr->AddNewSourceBuffer(
      llvm::MemoryBuffer::getMemBufferCopy(source, bufferName), SMLoc());
  SourceMgrDiagnosticHandler handler(*sourceMgr, &impl->context, diagnostics);
  // Registered last, asked first: swallows the remarks nobody asked for.
  ScopedDiagnosticHandler quiet(&impl->context, [&](Diagnostic &diag) {
    return success(isUnwantedRemark(diag, options));
  });
  OwningOpRef<ModuleOp> module =
      parseSourceFile<ModuleOp>(*sourceMgr, &impl->context);
  double parse = millisecondsSince(start);
  if (!module)
    return result;
  CompileResult compiled = impl->compile(*module, options, /*verified=*/true);
  compiled.diagnostics = result.diagnostics;
  compiled.times.parse = parse;
  return compiled;
}

CompileResult Compiler::compileModule(ModuleOp module,
                                      const CompileOptions &options) {
  std::string diagnostics;
  llvm::raw_string_ostream os(diagnostics);
  ScopedDiagnosticHandler handler(&impl->context, [&](Diagnostic &diag) {
    if (!isUnwantedRemark(diag, options))
      printDiagnostic(diag, os);
    return success();
  });
  CompileResult result = impl->compile(module, options, /*verified=*/false);
  result.diagnostics = diagnostics;
  return result;
}

CompileResult Compiler::Impl::compile(ModuleOp module,
                                      const CompileOptions &options,
                                      bool verified) {
  CompileResult result;
  SmallVector<gpu::GPUModuleOp> gpuModules(
      module.getBody()->getOps<gpu::GPUModuleOp>());
  if (gpuModules.size() != 1) {
    emitError(module.getLoc())
        << "tile-compile needs exactly one gpu.module (one PTX file), found "
        << gpuModules.size();
    return result;
  }
  gpu::GPUModuleOp kernels = gpuModules.front();
  ArrayAttr targets = kernels.getTargetsAttr();
  if (failed(retarget(kernels, options.chip)))
    return result;
  // The passes verify only where their pipelines end: what the input's ops
  // say about the chip (NVVM ops check it) is checked here, before them.
  if ((!verified || kernels.getTargetsAttr() != targets) &&
      failed(verify(module)))
    return result;
  result.chip = cast<NVVM::NVVMTargetAttr>(kernels.getTargetsAttr()[0])
                    .getChip()
                    .str();

  tile::TileToNVVMOptions pipeline;
  pipeline.explain = options.explain;
  pipeline.check = options.check;
  pipeline.sanitize = options.sanitize;
  pipeline.sanitizeTimeoutMs = options.sanitizeTimeoutMs;
  // The simulation's remarks are the checks' too: shown with the others.
  pipeline.simulationRemarks = options.remarks || options.explain;
  auto start = std::chrono::steady_clock::now();
  PassManager tileLowering(&context);
  tile::buildTileLoweringPipeline(tileLowering, pipeline);
  tileLowering.addInstrumentation(
      std::make_unique<SelectionTimer>(result.times.select));
  if (failed(runAndVerify(tileLowering, module)))
    return result;
  result.times.tileLowering = millisecondsSince(start) - result.times.select;
  start = std::chrono::steady_clock::now();
  if (failed(runAndVerify(upstreamLowering(), module)))
    return result;
  result.times.upstreamLowering = millisecondsSince(start);

  tile::manifest::LaunchManifest manifest = tile::buildLaunchManifest(module);
  if (options.keepLowered) {
    llvm::raw_string_ostream os(result.lowered);
    module.print(os);
  }
  if (failed(checkLowerableTypes(kernels)))
    return result;
  // The fatal-error handlers and the kernel names they report are process
  // wide: one code generation at a time.
  static std::mutex codegen;
  std::lock_guard<std::mutex> lock(codegen);
  kernelsInFlight.clear();
  for (auto func : kernels.getOps<LLVM::LLVMFuncOp>())
    kernelsInFlight += (kernelsInFlight.empty() ? "kernel " : ", ") +
                       func.getName().str();
  start = std::chrono::steady_clock::now();
  auto target = cast<NVVM::NVVMTargetAttr>(kernels.getTargetsAttr()[0]);
  FailureOr<std::string> ptx = BackendErrorHandler().around(
      [&] {
        return tile::detail::emitPTX(kernels, target, options.llvmPipeline);
      });
  if (failed(ptx))
    return result;
  result.ptx = std::move(*ptx);
  result.times.codegen = millisecondsSince(start);
  if (result.ptx.empty()) {
    emitError(module.getLoc()) << "the NVPTX backend produced no PTX";
    return result;
  }
  if (options.cubin) {
    start = std::chrono::steady_clock::now();
    std::string error = assemble(result.ptx, result.chip, result.cubin);
    result.times.ptxas = millisecondsSince(start);
    if (!error.empty()) {
      emitError(module.getLoc()) << error;
      return result;
    }
  }
  manifest.chip = result.chip;
  manifest.ptx = options.ptxName;
  if (options.cubin)
    manifest.cubin = options.cubinName;
  result.manifestJSON = tile::manifest::toJSONText(manifest);
  result.ok = true;
  return result;
}
