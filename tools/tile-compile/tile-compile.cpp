//===- tile-compile.cpp - .mlir kernels to PTX, cubin and manifest ----------===//
//
// Part of tile-mlir, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
//   tile-compile kernel.mlir -o kernel.ptx [--chip sm_100a|sm_90a]
//       [--cubin kernel.cubin] [--manifest kernel.json] [--explain]
//       [--check] [--lowered kernel.lowered.mlir]
//
// Runs --tile-to-nvvm on the one gpu.module of the input, writes the launch
// manifest, emits PTX through the LLVM NVPTX backend (gpu-module-to-binary
// format=isa) and, with --cubin, assembles it with ptxas.
//
//===----------------------------------------------------------------------===//

#include "tile/Pipeline/Manifest.h"
#include "tile/Pipeline/Pipeline.h"
#include "tile/Registration/Registration.h"
#include "tile/Target/CUDA/Chips.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/GPU/Transforms/Passes.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Support/FileUtilities.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "llvm/Config/llvm-config.h"
#include "llvm/Support/ErrorHandling.h"

#include <dlfcn.h>
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/ToolOutputFile.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;
namespace cl = llvm::cl;

static cl::OptionCategory category("tile-compile options");

static cl::opt<std::string> inputPath(cl::Positional, cl::desc("<kernel.mlir>"),
                                      cl::init("-"), cl::cat(category));
static cl::opt<std::string> ptxPath("o", cl::desc("PTX output file ('-' for stdout)"),
                                    cl::value_desc("kernel.ptx"), cl::init("-"),
                                    cl::cat(category));
static cl::opt<std::string>
    chipOption("chip",
               cl::desc("target chip, replacing the chip of every gpu.module's "
                        "#nvvm.target (default: the module's own, else "
                        "sm_100a)"),
               cl::value_desc("sm_100a|sm_90a"), cl::cat(category));
static cl::opt<std::string>
    cubinPath("cubin", cl::desc("also assemble the PTX with ptxas into this file"),
              cl::value_desc("kernel.cubin"), cl::cat(category));
static cl::opt<std::string>
    manifestPath("manifest", cl::desc("write the launch manifest (JSON) here"),
                 cl::value_desc("kernel.json"), cl::cat(category));
static cl::opt<std::string>
    loweredPath("lowered",
                cl::desc("write the NVVM + LLVM dialect module here"),
                cl::value_desc("kernel.lowered.mlir"), cl::cat(category));
static cl::opt<bool>
    explain("explain",
            cl::desc("remark per tile op: the variant dispatch chose and why "
                     "the others lost"),
            cl::init(false), cl::cat(category));
static cl::opt<bool>
    check("check",
          cl::desc("translation validation: read the emitted NVVM IR back, "
                   "run it through the PTX model and compare every element "
                   "with the tile ops' layouts"),
          cl::init(false), cl::cat(category));

namespace {

constexpr llvm::StringLiteral kDefaultChip = "sm_100a";

/// The least PTX ISA version (times 10) LLVM 22 accepts for `chip`; a lower
/// `+ptxNN` feature is a fatal error inside the NVPTX backend, so it is
/// diagnosed here first.
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

/// ptxas from PATH, $CUDA_HOME/bin or /usr/local/cuda/bin.
std::optional<std::string> findPtxas() {
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
  return std::nullopt;
}

LogicalResult writeFile(StringRef path, StringRef contents) {
  std::string error;
  std::unique_ptr<llvm::ToolOutputFile> out = openOutputFile(path, &error);
  if (!out) {
    llvm::errs() << "tile-compile: " << error << "\n";
    return failure();
  }
  out->os() << contents;
  out->keep();
  return success();
}

/// Scalar types the NVPTX backend cannot lower (LLVM crashes on them instead
/// of reporting an error): x87/quad/PPC floats and the small MLIR float
/// types, which have no LLVM IR type (the tile lowering passes them as
/// integers; hand-written LLVM dialect ops must too).
std::optional<Type> nvptxCannotLower(Type type) {
  if (auto f = dyn_cast<FloatType>(type))
    return f.isF80() || f.isF128() || f.getWidth() < 16
               ? std::optional<Type>(type)
               : std::nullopt;
  SmallVector<Type> inner;
  if (auto vector = dyn_cast<VectorType>(type))
    inner.push_back(vector.getElementType());
  else if (auto array = dyn_cast<LLVM::LLVMArrayType>(type))
    inner.push_back(array.getElementType());
  else if (auto strct = dyn_cast<LLVM::LLVMStructType>(type);
           strct && !strct.isIdentified())
    llvm::append_range(inner, strct.getBody());
  else if (auto fn = dyn_cast<LLVM::LLVMFunctionType>(type)) {
    llvm::append_range(inner, fn.getParams());
    inner.push_back(fn.getReturnType());
  } else if (auto fn = dyn_cast<FunctionType>(type)) {
    llvm::append_range(inner, fn.getInputs());
    llvm::append_range(inner, fn.getResults());
  }
  for (Type t : inner)
    if (std::optional<Type> bad = nvptxCannotLower(t))
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
    for (NamedAttribute attr : op->getAttrs())
      if (auto type = dyn_cast<TypeAttr>(attr.getValue()))
        types.push_back(type.getValue());
    for (Type type : types)
      if (std::optional<Type> bad = nvptxCannotLower(type)) {
        op->emitError() << "the NVPTX backend cannot lower values of type "
                        << *bad << "; use an integer type of the same width";
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

/// The install/remove entry points of libLLVM's own fatal-error handler.
/// The NVPTX backend lives in libLLVM.so and reports through that library's
/// handler; this executable also links LLVMSupport statically (through the
/// MLIR-free libraries), whose handler the backend never consults.
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

int compile(MLIRContext &context) {
  llvm::SourceMgr sourceMgr;
  SourceMgrDiagnosticHandler diagnostics(sourceMgr, &context);
  OwningOpRef<ModuleOp> module =
      parseSourceFile<ModuleOp>(inputPath, sourceMgr, &context);
  if (!module)
    return 1;

  SmallVector<gpu::GPUModuleOp> gpuModules(
      module->getBody()->getOps<gpu::GPUModuleOp>());
  if (gpuModules.size() != 1) {
    emitError(module->getLoc())
        << "tile-compile needs exactly one gpu.module (one PTX file), found "
        << gpuModules.size();
    return 1;
  }
  gpu::GPUModuleOp kernels = gpuModules.front();
  if (failed(retarget(kernels, chipOption)))
    return 1;
  std::string chip = cast<NVVM::NVVMTargetAttr>(kernels.getTargetsAttr()[0])
                         .getChip()
                         .str();

  PassManager lower(&context);
  tile::TileToNVVMOptions options;
  options.explain = explain;
  options.check = check;
  tile::buildTileToNVVMPipeline(lower, options);
  if (failed(lower.run(*module)))
    return 1;

  tile::manifest::LaunchManifest manifest = tile::buildLaunchManifest(*module);
  if (!loweredPath.empty()) {
    std::string text;
    llvm::raw_string_ostream os(text);
    module->print(os);
    if (failed(writeFile(loweredPath, text)))
      return 1;
  }

  if (failed(checkLowerableTypes(kernels)))
    return 1;
  for (auto func : kernels.getOps<LLVM::LLVMFuncOp>())
    kernelsInFlight += (kernelsInFlight.empty() ? "kernel " : ", ") +
                       func.getName().str();
  PassManager serialize(&context);
  GpuModuleToBinaryPassOptions toBinary;
  toBinary.compilationTarget = "isa";
  serialize.addPass(createGpuModuleToBinaryPass(toBinary));
  if (failed(BackendErrorHandler().around(
          [&] { return serialize.run(*module); })))
    return 1;
  std::string ptx;
  module->walk([&](gpu::BinaryOp binary) {
    for (auto object : binary.getObjects().getAsRange<gpu::ObjectAttr>())
      ptx = object.getObject().getValue().str();
  });
  if (ptx.empty()) {
    emitError(module->getLoc()) << "the NVPTX backend produced no PTX";
    return 1;
  }
  if (failed(writeFile(ptxPath, ptx)))
    return 1;

  if (!cubinPath.empty()) {
    std::optional<std::string> ptxas = findPtxas();
    if (!ptxas) {
      llvm::errs() << "tile-compile: --cubin needs ptxas (searched PATH, "
                      "$CUDA_HOME/bin, /usr/local/cuda/bin)\n";
      return 1;
    }
    // ptxas reads a file: assemble the PTX we wrote, or a temporary copy
    // when it went to stdout.
    std::string ptxFile = ptxPath;
    llvm::SmallString<128> temporary;
    if (ptxPath == "-") {
      if (llvm::sys::fs::createTemporaryFile("tile-compile", "ptx",
                                             temporary)) {
        llvm::errs() << "tile-compile: cannot create a temporary file\n";
        return 1;
      }
      ptxFile = temporary.str().str();
      if (failed(writeFile(ptxFile, ptx)))
        return 1;
    }
    std::string arch = "-arch=" + chip;
    SmallVector<StringRef> args = {*ptxas, arch, ptxFile, "-o", cubinPath};
    std::string error;
    int rc = llvm::sys::ExecuteAndWait(*ptxas, args, std::nullopt, {}, 0, 0,
                                       &error);
    if (!temporary.empty())
      llvm::sys::fs::remove(temporary);
    if (rc != 0) {
      llvm::errs() << "tile-compile: ptxas " << arch << " failed (exit " << rc
                   << ")" << (error.empty() ? "" : ": " + error) << "\n";
      return 1;
    }
    manifest.cubin = cubinPath.getValue();
  }

  if (!manifestPath.empty()) {
    manifest.chip = chip;
    manifest.ptx = ptxPath.getValue();
    if (failed(writeFile(manifestPath, tile::manifest::toJSONText(manifest))))
      return 1;
  }
  return 0;
}

} // namespace

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  cl::HideUnrelatedOptions(category);
  cl::ParseCommandLineOptions(
      argc, argv,
      "tile-compile: tile kernels (.mlir) to PTX, cubin and launch manifest\n");
  DialectRegistry registry;
  tile::registerAllDialects(registry);
  tile::registerAllPasses();
  MLIRContext context(registry);
  context.loadAllAvailableDialects();
  // Diagnostics point at the source; the op dump would repeat it.
  context.printOpOnDiagnostic(false);
  return compile(context);
}
