//===- Compiler.h - tile kernels to PTX + manifest, in process ---*- C++ -*-===//
//
// Part of tile-mlir, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// What tile-compile does, as a library: one gpu.module of tile IR in, PTX,
// the launch manifest (JSON) and every diagnostic out, optionally a cubin
// through ptxas. A Compiler owns an MLIRContext and is reused across
// compilations: dialects load once, on first use, the upstream lowering is
// built once, and each target's NVPTX TargetMachine once per process.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_COMPILER_COMPILER_H
#define TILE_COMPILER_COMPILER_H

#include "llvm/ADT/StringRef.h"

#include <memory>
#include <string>
#include <vector>

namespace mlir {
class MLIRContext;
class ModuleOp;
} // namespace mlir

namespace tile {

/// The LLVM IR optimisation pipeline before NVPTX code generation (at an O
/// level of 1 to 3; O0 always runs LLVM's O0 pipeline).
enum class LLVMPipeline {
  /// For a module whose functions are all kernels: a short function
  /// pipeline (instcombine, simplifycfg, LICM, full unrolling, GVN, DCE;
  /// docs/Design.md lists it). Any other module gets LLVM's default<On>.
  Kernel,
  /// LLVM's default<On> pipeline, as gpu-module-to-binary runs it.
  Default,
};

struct CompileOptions {
  /// Replaces the chip of the gpu.module's #nvvm.target ("" keeps it; a
  /// module without one gets sm_100a).
  std::string chip;
  /// A remark per tile op: the variant chosen and why the others lost.
  bool explain = false;
  /// Translation validation of the lowering.
  bool check = false;
  /// Runtime checks of the barrier protocol (--tile-sanitize): mbarrier
  /// waits that time out, barrier and stage indices in range; TileRuntime
  /// reports a failing one as a launch error.
  bool sanitize = false;
  /// With `sanitize`: milliseconds an mbarrier wait may take.
  unsigned sanitizeTimeoutMs = 1000;
  /// Keep the remarks the checks make in `CompileResult::diagnostics` (the
  /// kernel verifier's "not proven"); `explain` adds dispatch's. Without
  /// either, remarks are dropped: errors and warnings only.
  bool remarks = false;
  /// Also assemble the PTX with ptxas into `CompileResult::cubin`.
  bool cubin = false;
  /// The LLVM IR pipeline before NVPTX code generation.
  LLVMPipeline llvmPipeline = LLVMPipeline::Kernel;
  /// Keep the lowered NVVM + LLVM module's text in `CompileResult::lowered`.
  bool keepLowered = false;
  /// The file names the manifest records for the PTX and the cubin.
  std::string ptxName;
  std::string cubinName;
};

/// Wall-clock milliseconds of each step.
struct CompileTimings {
  double parse = 0;
  /// Kernel checks, variant selection (predicates and plans), target check.
  double select = 0;
  /// Shared-memory placement and the lowering of the tile ops.
  double tileLowering = 0;
  /// convert-nvgpu/gpu/nvvm-to-llvm and cleanups.
  double upstreamLowering = 0;
  /// LLVM NVPTX code generation (PTX text).
  double codegen = 0;
  double ptxas = 0;
};

struct CompileResult {
  bool ok = false;
  std::string chip;
  std::string ptx;
  std::string manifestJSON;
  /// Every diagnostic, as `file:line:col: error: ...` lines with notes.
  std::string diagnostics;
  std::string lowered;
  std::vector<char> cubin;
  CompileTimings times;
};

class Compiler {
public:
  /// With its own context (every dialect of the pipeline registered,
  /// loaded on first use; no thread pool).
  Compiler();
  /// In `context`, which must outlive the compiler and have the dialects
  /// of tile::registerAllDialects.
  explicit Compiler(mlir::MLIRContext &context);
  ~Compiler();
  Compiler(const Compiler &) = delete;
  Compiler &operator=(const Compiler &) = delete;

  /// Parses `source` (named `bufferName` in diagnostics) and compiles it.
  CompileResult compileSource(llvm::StringRef source,
                              const CompileOptions &options,
                              llvm::StringRef bufferName = "<source>");
  /// Compiles `module` (of this compiler's context) in place: it holds the
  /// lowered module afterwards.
  CompileResult compileModule(mlir::ModuleOp module,
                              const CompileOptions &options);

  mlir::MLIRContext &context();

private:
  struct Impl;
  std::unique_ptr<Impl> impl;
};

/// ptxas from PATH, $CUDA_HOME/bin or /usr/local/cuda/bin; "" if none.
std::string findPtxas();

} // namespace tile

#endif // TILE_COMPILER_COMPILER_H
