//===- Compile.cpp - compile tile kernels through the C API -----------------===//
//
// Part of tile-mlir, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "tile-c/Compile.h"
#include "tile/Compiler/Compiler.h"

#include "mlir/CAPI/IR.h"
#include "mlir/CAPI/Support.h"
#include "mlir/IR/BuiltinOps.h"

#include <mutex>

struct TileCompileResult {
  tile::CompileResult result;
};

namespace {

tile::CompileOptions optionsOf(TileCompileOptions options) {
  tile::CompileOptions out;
  out.chip = options.chip ? options.chip : "";
  out.explain = options.explain;
  out.check = options.check;
  out.cubin = options.cubin;
  out.remarks = options.remarks;
  out.sanitize = options.sanitize;
  if (options.sanitizeTimeoutMs)
    out.sanitizeTimeoutMs = options.sanitizeTimeoutMs;
  out.llvmPipeline = options.defaultLLVMPipeline ? tile::LLVMPipeline::Default
                                                 : tile::LLVMPipeline::Kernel;
  return out;
}

MlirStringRef refOf(const std::string &text) {
  return mlirStringRefCreate(text.data(), text.size());
}

} // namespace

TileCompileResultRef tileCompileSource(MlirStringRef source,
                                       TileCompileOptions options) {
  // One context for every compilation of the process: dialects load once.
  static std::mutex lock;
  static tile::Compiler *compiler = nullptr;
  std::lock_guard<std::mutex> guard(lock);
  if (!compiler)
    compiler = new tile::Compiler();
  return new TileCompileResult{compiler->compileSource(
      unwrap(source), optionsOf(options), "<source>")};
}

TileCompileResultRef tileCompileModule(MlirModule module,
                                       TileCompileOptions options) {
  mlir::ModuleOp op = unwrap(module);
  tile::Compiler compiler(*op.getContext());
  return new TileCompileResult{compiler.compileModule(op, optionsOf(options))};
}

bool tileCompileResultSucceeded(TileCompileResultRef r) { return r->result.ok; }
MlirStringRef tileCompileResultGetChip(TileCompileResultRef r) {
  return refOf(r->result.chip);
}
MlirStringRef tileCompileResultGetPtx(TileCompileResultRef r) {
  return refOf(r->result.ptx);
}
MlirStringRef tileCompileResultGetManifest(TileCompileResultRef r) {
  return refOf(r->result.manifestJSON);
}
MlirStringRef tileCompileResultGetDiagnostics(TileCompileResultRef r) {
  return refOf(r->result.diagnostics);
}
MlirStringRef tileCompileResultGetCubin(TileCompileResultRef r) {
  return mlirStringRefCreate(r->result.cubin.data(), r->result.cubin.size());
}
void tileCompileResultGetTimings(TileCompileResultRef r, double timings[6]) {
  const tile::CompileTimings &t = r->result.times;
  timings[0] = t.parse;
  timings[1] = t.select;
  timings[2] = t.tileLowering;
  timings[3] = t.upstreamLowering;
  timings[4] = t.codegen;
  timings[5] = t.ptxas;
}
void tileCompileResultDestroy(TileCompileResultRef r) { delete r; }
