//===- tile-compile.cpp - .mlir kernels to PTX, cubin and manifest ----------===//
//
// Part of tile-mlir, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
//   tile-compile kernel.mlir -o kernel.ptx [--chip CHIP]
//       [--cubin kernel.cubin] [--manifest kernel.json] [--explain]
//       [--remarks] [--check] [--lowered kernel.lowered.mlir]
//
// Runs --tile-to-nvvm on the one gpu.module of the input, writes the launch
// manifest, emits PTX through the LLVM NVPTX backend (gpu-module-to-binary
// format=isa) and, with --cubin, assembles it with ptxas.
//
//===----------------------------------------------------------------------===//

#include "tile/Compiler/Compiler.h"
#include "tile/Target/CUDA/Chips.h"

#include "mlir/Support/FileUtilities.h"
#include "mlir/Support/LLVM.h"
#include "llvm/Support/LogicalResult.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/MemoryBuffer.h"
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
               cl::value_desc("chip"), cl::cat(category));
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
    remarks("remarks",
            cl::desc("print the remarks the checks make (what the kernel "
                     "checks could not prove); --explain adds dispatch's. "
                     "Without either, only errors and warnings are printed"),
            cl::init(false), cl::cat(category));
static cl::opt<bool>
    check("check",
          cl::desc("translation validation: read the emitted NVVM IR back, "
                   "run it through the PTX model and compare every element "
                   "with the tile ops' layouts"),
          cl::init(false), cl::cat(category));
static cl::opt<bool>
    sanitize("sanitize",
             cl::desc("runtime checks of the barrier protocol: mbarrier "
                      "waits time out, barrier and stage indices are "
                      "checked; TileRuntime reports a failing check as a "
                      "launch error naming the kernel and the check"),
             cl::init(false), cl::cat(category));
static cl::opt<unsigned> sanitizeTimeoutMs(
    "sanitize-timeout-ms",
    cl::desc("with --sanitize: milliseconds an mbarrier wait may take "
             "before it is reported (default 1000)"),
    cl::init(1000), cl::cat(category));
static cl::opt<tile::LLVMPipeline> llvmPipeline(
    "llvm-pipeline",
    cl::desc("LLVM IR optimisation before NVPTX code generation"),
    cl::values(clEnumValN(tile::LLVMPipeline::Kernel, "kernel",
                          "a short function pipeline for modules of kernels "
                          "alone, LLVM's default<On> for others (default)"),
               clEnumValN(tile::LLVMPipeline::Default, "default",
                          "LLVM's default<On> pipeline, as "
                          "gpu-module-to-binary runs it")),
    cl::init(tile::LLVMPipeline::Kernel), cl::cat(category));

namespace {

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

int compile() {
  auto input = llvm::MemoryBuffer::getFileOrSTDIN(inputPath);
  if (!input) {
    llvm::errs() << "tile-compile: cannot read " << inputPath << ": "
                 << input.getError().message() << "\n";
    return 1;
  }
  tile::CompileOptions options;
  options.chip = chipOption;
  options.explain = explain;
  options.check = check;
  options.sanitize = sanitize;
  options.sanitizeTimeoutMs = sanitizeTimeoutMs;
  options.remarks = remarks;
  options.llvmPipeline = llvmPipeline;
  options.cubin = !cubinPath.empty();
  options.keepLowered = !loweredPath.empty();
  options.ptxName = ptxPath;
  options.cubinName = cubinPath;
  // Never destroyed: the process ends after this compile, and tearing the
  // context down (every op, type and attribute it made) only delays exit.
  static tile::Compiler *compiler = new tile::Compiler();
  tile::CompileResult result = compiler->compileSource(
      (*input)->getBuffer(), options,
      inputPath == "-" ? "<stdin>" : StringRef(inputPath));
  llvm::errs() << result.diagnostics;
  if (!result.lowered.empty() &&
      failed(writeFile(loweredPath, result.lowered)))
    return 1;
  if (!result.ok)
    return 1;
  if (failed(writeFile(ptxPath, result.ptx)))
    return 1;
  if (options.cubin &&
      failed(writeFile(cubinPath, StringRef(result.cubin.data(),
                                            result.cubin.size()))))
    return 1;
  if (!manifestPath.empty() &&
      failed(writeFile(manifestPath, result.manifestJSON)))
    return 1;
  return 0;
}

} // namespace

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  cl::HideUnrelatedOptions(category);
  // The chips come from the chip table (Target/CUDA/Chips.h), at run time.
  static const std::string chipHelp =
      "target chip, replacing the chip of every gpu.module's #nvvm.target "
      "(default: the module's own, else sm_100a); one of: " +
      tile::cuda::knownChipNames();
  chipOption.setDescription(chipHelp);
  cl::ParseCommandLineOptions(
      argc, argv,
      "tile-compile: tile kernels (.mlir) to PTX, cubin and launch manifest\n");
  return compile();
}
