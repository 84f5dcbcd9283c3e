//===- NVPTXCodegen.cpp - NVVM + LLVM dialect module to PTX -----------------===//
//
// Part of tile-mlir, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "NVPTXCodegen.h"

#include "mlir/IR/BuiltinAttributeInterfaces.h"
#include "mlir/Target/LLVM/NVVM/Utils.h"
#include "mlir/Target/LLVMIR/Export.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/CallingConv.h"
#include "llvm/IR/LegacyPassManager.h"
#include "llvm/IR/Module.h"
#include "llvm/IRReader/IRReader.h"
#include "llvm/Linker/Linker.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/Transforms/IPO/Internalize.h"

#include <mutex>

using namespace mlir;

namespace {

void initializeNVPTX() {
  static std::once_flag once;
  std::call_once(once, [] {
    LLVMInitializeNVPTXTargetInfo();
    LLVMInitializeNVPTXTarget();
    LLVMInitializeNVPTXTargetMC();
    LLVMInitializeNVPTXAsmPrinter();
  });
}

/// The TargetMachine of `target`, made on first use and kept for the
/// process: making one per compile (subtarget and lowering tables) was a
/// fixed cost of every compile, and its output does not depend on what it
/// compiled before. Its O level applies to the IR pipeline and to code
/// generation, as in gpu-module-to-binary.
FailureOr<llvm::TargetMachine *> targetMachineFor(NVVM::NVVMTargetAttr target,
                                                  Operation *op) {
  // Never destroyed: nothing needs LLVM's code generators torn down at exit.
  static auto *machines =
      new llvm::StringMap<std::unique_ptr<llvm::TargetMachine>>();
  int optLevel = target.getO();
  if (optLevel < 0 || optLevel > 3)
    return op->emitError() << "the optimization level of " << target
                           << " is not 0 to 3";
  std::string key = llvm::formatv("{0} {1} {2} O{3}", target.getTriple(),
                                  target.getChip(), target.getFeatures(),
                                  optLevel);
  std::unique_ptr<llvm::TargetMachine> &machine = (*machines)[key];
  if (machine)
    return machine.get();
  initializeNVPTX();
  llvm::Triple triple(target.getTriple());
  std::string error;
  const llvm::Target *llvmTarget =
      llvm::TargetRegistry::lookupTarget(triple, error);
  if (!llvmTarget)
    return op->emitError() << "no LLVM target for " << target.getTriple()
                           << ": " << error;
  machine.reset(llvmTarget->createTargetMachine(
      triple, target.getChip(), target.getFeatures(), {}, {}));
  if (!machine)
    return op->emitError() << "LLVM has no target machine for " << target;
  machine->setOptLevel(static_cast<llvm::CodeGenOptLevel>(optLevel));
  return machine.get();
}

/// libdevice of the CUDA toolkit gpu-module-to-binary would use
/// ($CUDA_ROOT, $CUDA_HOME, $CUDA_PATH); "" without one.
std::string libdevicePath() {
  StringRef toolkit = NVVM::getCUDAToolkitPath();
  if (toolkit.empty())
    return "";
  SmallString<256> path(toolkit);
  llvm::sys::path::append(path, "nvvm", "libdevice", "libdevice.10.bc");
  return llvm::sys::fs::is_regular_file(path) ? path.str().str() : "";
}

/// The bitcode libraries to link: the target's `link` list, and libdevice
/// when the module declares one of its functions. Linking imports only the
/// definitions a module references, and every libdevice function is
/// __nv_*, so without such a declaration reading libdevice (a 500 KB
/// bitcode file, parsed per compile) changes nothing.
LogicalResult loadLibraries(llvm::Module &module, NVVM::NVVMTargetAttr target,
                            Operation *op,
                            SmallVectorImpl<std::unique_ptr<llvm::Module>> &out) {
  llvm::LLVMContext &context = module.getContext();
  SmallVector<Attribute> libraries;
  if (ArrayAttr link = target.getLink())
    llvm::append_range(libraries, link.getValue());
  bool callsLibdevice = llvm::any_of(module.functions(), [](llvm::Function &f) {
    return f.isDeclaration() && f.getName().starts_with("__nv_");
  });
  if (callsLibdevice) {
    std::string libdevice = libdevicePath();
    if (!libdevice.empty())
      libraries.push_back(StringAttr::get(op->getContext(), libdevice));
  }
  for (Attribute library : libraries) {
    llvm::SMDiagnostic error;
    std::unique_ptr<llvm::Module> loaded;
    if (auto path = dyn_cast<StringAttr>(library)) {
      loaded = llvm::getLazyIRFileModule(path.getValue(), error, context);
    } else if (auto blob = dyn_cast<BlobAttr>(library)) {
      ArrayRef<char> data = blob.getData();
      loaded = llvm::getLazyIRModule(
          llvm::MemoryBuffer::getMemBuffer(StringRef(data.data(), data.size()),
                                           "<linked library>",
                                           /*RequiresNullTerminator=*/false),
          error, context);
    } else {
      return op->emitError() << "cannot link " << library
                             << ": neither a file name nor a blob";
    }
    if (!loaded)
      return op->emitError() << "cannot load the bitcode library " << library
                             << ": " << error.getMessage();
    out.push_back(std::move(loaded));
  }
  return success();
}

LogicalResult linkLibraries(llvm::Module &module, NVVM::NVVMTargetAttr target,
                            Operation *op) {
  SmallVector<std::unique_ptr<llvm::Module>> libraries;
  if (failed(loadLibraries(module, target, op, libraries)))
    return failure();
  llvm::Linker linker(module);
  for (std::unique_ptr<llvm::Module> &library : libraries) {
    // What a library brings in is internal to the module, so the optimiser
    // may inline it and drop what ends up unused.
    bool failed = linker.linkInModule(
        std::move(library), llvm::Linker::Flags::LinkOnlyNeeded,
        [](llvm::Module &m, const llvm::StringSet<> &imported) {
          llvm::internalizeModule(m, [&](const llvm::GlobalValue &gv) {
            return !gv.hasName() || !imported.contains(gv.getName());
          });
        });
    if (failed)
      return op->emitError() << "linking the bitcode libraries failed";
  }
  return success();
}

/// LLVM's optimisation of a module of kernels only (every function with a
/// body is a kernel: nothing to inline, no interprocedural work), after
/// the target's pipeline-start passes (NVPTX: NVVMReflect with the chip's
/// SM version, intrinsic ranges). The IR the MLIR lowering produces is
/// already canonicalised and CSE'd; what LLVM adds that changes the PTX is
/// instruction combining, CFG cleanup, hoisting out of loops, full
/// unrolling of constant-trip loops (register arrays), GVN and dead-code
/// removal. NVPTX's own IR passes (address spaces, strength reduction, GEP
/// splitting) run in code generation either way. LLVM's default<O2> runs
/// over a hundred passes (nine rounds of instcombine) on such a module;
/// over the GEMM families and the examples the SASS differs by 1.6 % in
/// total, with the wgmma-issuing blocks unchanged, in under half the time
/// (docs/Performance.md).
constexpr const char *kKernelPipeline =
    "function(sroa,early-cse<memssa>,instcombine<no-verify-fixpoint>,"
    "simplifycfg,loop-mssa(licm),loop(loop-unroll-full),sroa,gvn,"
    "instcombine<no-verify-fixpoint>,adce,"
    "simplifycfg<hoist-common-insts;sink-common-insts>)";

bool onlyKernels(const llvm::Module &module) {
  return llvm::all_of(module.functions(), [](const llvm::Function &f) {
    return f.isDeclaration() ||
           f.getCallingConv() == llvm::CallingConv::PTX_Kernel;
  });
}

/// Runs the LLVM IR pipeline `choice` names at the target's O level.
LogicalResult optimize(llvm::Module &module, llvm::TargetMachine &machine,
                       int optLevel, tile::LLVMPipeline choice,
                       Operation *op) {
  llvm::LoopAnalysisManager loops;
  llvm::FunctionAnalysisManager functions;
  llvm::CGSCCAnalysisManager sccs;
  llvm::ModuleAnalysisManager modules;
  llvm::PipelineTuningOptions tuning;
  tuning.LoopUnrolling = true;
  tuning.LoopInterleaving = true;
  tuning.LoopVectorization = true;
  tuning.SLPVectorization = true;
  llvm::PassBuilder builder(&machine, tuning);
  builder.registerModuleAnalyses(modules);
  builder.registerCGSCCAnalyses(sccs);
  builder.registerFunctionAnalyses(functions);
  builder.registerLoopAnalyses(loops);
  builder.crossRegisterProxies(loops, functions, sccs, modules);
  static const llvm::OptimizationLevel levels[] = {
      llvm::OptimizationLevel::O0, llvm::OptimizationLevel::O1,
      llvm::OptimizationLevel::O2, llvm::OptimizationLevel::O3};
  llvm::ModulePassManager pipeline;
  if (optLevel == 0) {
    pipeline = builder.buildO0DefaultPipeline(levels[0]);
  } else if (choice == tile::LLVMPipeline::Kernel && onlyKernels(module)) {
    builder.invokePipelineStartEPCallbacks(pipeline, levels[optLevel]);
    if (llvm::Error error =
            builder.parsePassPipeline(pipeline, kKernelPipeline))
      return op->emitError() << "the kernel pipeline does not parse: "
                             << llvm::toString(std::move(error));
  } else {
    pipeline = builder.buildPerModuleDefaultPipeline(levels[optLevel]);
  }
  pipeline.run(module, modules);
  return success();
}

} // namespace

FailureOr<std::string> tile::detail::emitPTX(gpu::GPUModuleOp module,
                                             NVVM::NVVMTargetAttr target,
                                             LLVMPipeline pipeline) {
  FailureOr<llvm::TargetMachine *> machine = targetMachineFor(target, module);
  if (failed(machine))
    return failure();
  llvm::LLVMContext context;
  // The MLIR module was verified; the LLVM IR made from it is verified
  // here (cheap next to code generation), so IR the NVPTX backend would
  // choke on is a diagnostic, not a backend crash.
  std::unique_ptr<llvm::Module> llvmModule = translateModuleToLLVMIR(
      module, context, "LLVMDialectModule", /*disableVerification=*/false);
  if (!llvmModule)
    return module.emitError() << "translation to LLVM IR failed";
  llvmModule->setDataLayout((*machine)->createDataLayout());
  llvmModule->setTargetTriple((*machine)->getTargetTriple());
  if (failed(linkLibraries(*llvmModule, target, module)))
    return failure();
  if (failed(optimize(*llvmModule, **machine, target.getO(), pipeline,
                      module)))
    return failure();
  SmallString<0> ptx;
  {
    llvm::raw_svector_ostream os(ptx);
    llvm::legacy::PassManager codegen;
    if ((*machine)->addPassesToEmitFile(codegen, os, nullptr,
                                        llvm::CodeGenFileType::AssemblyFile))
      return module.emitError() << "the NVPTX backend cannot emit assembly";
    codegen.run(*llvmModule);
  }
  return std::string(ptx.str());
}
