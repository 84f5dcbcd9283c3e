//===- CublasLt.cpp - cuBLASLt opened at run time --------------------------===//
//
// Part of tile-mlir, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "CublasLt.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <dlfcn.h>
#include <type_traits>
#include <vector>

using llvm::Error;

namespace tile::bench {

namespace {

// The values of cuBLAS's and the CUDA runtime's enums that are used here
// (cublas_api.h, cublasLt.h, library_types.h; stable across 12.x and 13.x).
enum : int {
  kStatusSuccess = 0,
  kComputeF32 = 68,          // CUBLAS_COMPUTE_32F
  kTypeF32 = 0,              // CUDA_R_32F
  kTypeF16 = 2,              // CUDA_R_16F
  kTypeBf16 = 14,            // CUDA_R_16BF
  kTypeE4m3 = 28,            // CUDA_R_8F_E4M3
  kOpN = 0,                  // CUBLAS_OP_N
  kOpT = 1,                  // CUBLAS_OP_T
  kDescTransA = 3,           // CUBLASLT_MATMUL_DESC_TRANSA
  kDescTransB = 4,           // CUBLASLT_MATMUL_DESC_TRANSB
  kDescAScalePointer = 17,   // CUBLASLT_MATMUL_DESC_A_SCALE_POINTER
  kDescBScalePointer = 18,   // CUBLASLT_MATMUL_DESC_B_SCALE_POINTER
  kPrefMaxWorkspace = 1,     // CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES
};

/// cublasLtMatmulHeuristicResult_t.
struct HeuristicResult {
  uint64_t algo[8];
  size_t workspaceSize;
  int state;
  float wavesCount;
  int reserved[4];
};

int typeOf(const std::string &name) {
  if (name == "bf16")
    return kTypeBf16;
  if (name == "f16")
    return kTypeF16;
  if (name == "f8E4M3FN")
    return kTypeE4m3;
  return -1;
}

Error error(const std::string &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), message);
}

/// site-packages of the python3 on PATH that has torch, or "".
std::string torchSitePackages() {
  FILE *pipe = popen("python3 -c \"import importlib.util as u, os; "
                     "s = u.find_spec('torch'); "
                     "print(os.path.dirname(list(s.submodule_search_locations)[0]) "
                     "if s else '')\" 2>/dev/null",
                     "r");
  if (!pipe)
    return "";
  char line[4096] = {};
  std::string out = fgets(line, sizeof(line), pipe) ? line : "";
  pclose(pipe);
  while (!out.empty() && (out.back() == '\n' || out.back() == '\r'))
    out.pop_back();
  return out;
}

} // namespace

struct CublasLt::Api {
  size_t (*getVersion)();
  const char *(*getStatusName)(int);
  int (*create)(void **);
  int (*destroy)(void *);
  int (*descCreate)(void **, int, int);
  int (*descDestroy)(void *);
  int (*descSetAttribute)(void *, int, const void *, size_t);
  int (*layoutCreate)(void **, int, uint64_t, uint64_t, int64_t);
  int (*layoutDestroy)(void *);
  int (*preferenceCreate)(void **);
  int (*preferenceDestroy)(void *);
  int (*preferenceSetAttribute)(void *, int, const void *, size_t);
  int (*heuristic)(void *, void *, void *, void *, void *, void *, void *, int,
                   HeuristicResult *, int *);
  int (*matmul)(void *, void *, const void *, const void *, void *,
                const void *, void *, const void *, const void *, void *,
                void *, void *, const void *, void *, size_t, void *);
};

llvm::Expected<std::unique_ptr<CublasLt>> CublasLt::open() {
  std::vector<std::string> candidates;
  if (const char *env = std::getenv("TILE_CUBLASLT")) {
    if (std::string(env) == "off")
      return error("TILE_CUBLASLT=off: cuBLASLt not used");
    candidates.push_back(env);
  }
  candidates.push_back("libcublasLt.so.13");
  candidates.push_back("libcublasLt.so.12");
  std::string tried;
  void *library = nullptr;
  std::string path;
  auto attempt = [&](const std::string &name) {
    if (library)
      return;
    library = dlopen(name.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (library) {
      path = name;
      return;
    }
    const char *why = dlerror();
    tried += "\n  " + name + ": " + (why ? why : "not found");
  };
  for (const std::string &name : candidates) {
    attempt(name);
    // A library named by TILE_CUBLASLT is the one to measure against, or
    // none: never quietly another.
    if (!library && std::getenv("TILE_CUBLASLT"))
      return error("TILE_CUBLASLT names a library that does not load:" + tried);
  }
  if (!library) {
    std::string site = torchSitePackages();
    if (site.empty())
      tried += "\n  (no python3 with torch to look beside)";
    for (const char *dir : {"/nvidia/cu13/lib/", "/nvidia/cublas/lib/"})
      for (const char *file : {"libcublasLt.so.13", "libcublasLt.so.12"})
        if (!site.empty())
          attempt(site + dir + file);
  }
  if (!library)
    return error("cuBLASLt not found; tried:" + tried +
                 "\n  (set TILE_CUBLASLT to the library's path)");

  std::unique_ptr<CublasLt> lt(new CublasLt());
  lt->library = library;
  lt->path_ = path;
  lt->api = std::make_unique<Api>();
  Api &api = *lt->api;
  std::string missing;
  auto resolve = [&](auto &slot, const char *name) {
    slot = reinterpret_cast<std::remove_reference_t<decltype(slot)>>(
        dlsym(library, name));
    if (!slot)
      missing += std::string(" ") + name;
  };
  resolve(api.getVersion, "cublasLtGetVersion");
  resolve(api.getStatusName, "cublasLtGetStatusName");
  resolve(api.create, "cublasLtCreate");
  resolve(api.destroy, "cublasLtDestroy");
  resolve(api.descCreate, "cublasLtMatmulDescCreate");
  resolve(api.descDestroy, "cublasLtMatmulDescDestroy");
  resolve(api.descSetAttribute, "cublasLtMatmulDescSetAttribute");
  resolve(api.layoutCreate, "cublasLtMatrixLayoutCreate");
  resolve(api.layoutDestroy, "cublasLtMatrixLayoutDestroy");
  resolve(api.preferenceCreate, "cublasLtMatmulPreferenceCreate");
  resolve(api.preferenceDestroy, "cublasLtMatmulPreferenceDestroy");
  resolve(api.preferenceSetAttribute, "cublasLtMatmulPreferenceSetAttribute");
  resolve(api.heuristic, "cublasLtMatmulAlgoGetHeuristic");
  resolve(api.matmul, "cublasLtMatmul");
  if (!missing.empty()) {
    dlclose(library);
    return error(path + " lacks" + missing);
  }
  if (Error e = lt->check(api.create(&lt->handle),
                          ("cublasLtCreate (" + path + ")").c_str())) {
    lt->handle = nullptr;
    dlclose(library);
    return std::move(e);
  }
  return std::move(lt);
}

CublasLt::~CublasLt() {
  if (handle)
    api->destroy(handle);
  // The library stays loaded: its own teardown runs at exit.
}

size_t CublasLt::version() const { return api->getVersion(); }

Error CublasLt::check(int status, const char *what) const {
  if (status == kStatusSuccess)
    return Error::success();
  const char *name = api->getStatusName ? api->getStatusName(status) : nullptr;
  return error(std::string(what) + " failed: " +
               (name ? name : "status " + std::to_string(status)));
}

llvm::Expected<std::unique_ptr<CublasLt::Plan>>
CublasLt::plan(const LtProblem &p, uint64_t workspaceAddress,
               size_t workspaceBytes) const {
  int in = typeOf(p.inputType), out = typeOf(p.outputType);
  if (in < 0 || out < 0 || out == kTypeE4m3)
    return error("cuBLASLt reference: unsupported types " + p.inputType +
                 " -> " + p.outputType);
  std::unique_ptr<Plan> plan(new Plan());
  plan->lt = this;
  plan->problem = p;
  plan->workspaceAddress = workspaceAddress;
  // cuBLAS is column-major: the row-major C (M x N) is the column-major
  // C^T (N x M) = B' * A^T, where the row-major A (M x K) is read as the
  // column-major A^T (K x M, op N), and B' comes from the row-major B:
  // N x K read as the column-major K x N with op T (the "TN" form that
  // e4m3 requires), or K x N read as the column-major N x K with op N.
  int transA = p.bMnMajor ? kOpN : kOpT, transB = kOpN;
  if (Error e = check(api->descCreate(&plan->desc, kComputeF32, kTypeF32),
                      "cublasLtMatmulDescCreate"))
    return std::move(e);
  if (Error e = check(api->descSetAttribute(plan->desc, kDescTransA, &transA,
                                            sizeof(transA)),
                      "cublasLtMatmulDescSetAttribute(TRANSA)"))
    return std::move(e);
  if (Error e = check(api->descSetAttribute(plan->desc, kDescTransB, &transB,
                                            sizeof(transB)),
                      "cublasLtMatmulDescSetAttribute(TRANSB)"))
    return std::move(e);
  if (in == kTypeE4m3) {
    const void *scale = reinterpret_cast<const void *>(p.unitScale);
    if (Error e = check(api->descSetAttribute(plan->desc, kDescAScalePointer,
                                              &scale, sizeof(scale)),
                        "cublasLtMatmulDescSetAttribute(A_SCALE_POINTER)"))
      return std::move(e);
    if (Error e = check(api->descSetAttribute(plan->desc, kDescBScalePointer,
                                              &scale, sizeof(scale)),
                        "cublasLtMatmulDescSetAttribute(B_SCALE_POINTER)"))
      return std::move(e);
  }
  uint64_t rowsA = p.bMnMajor ? uint64_t(p.n) : uint64_t(p.k);
  uint64_t colsA = p.bMnMajor ? uint64_t(p.k) : uint64_t(p.n);
  if (Error e = check(api->layoutCreate(&plan->layoutA, in, rowsA, colsA, p.ldb),
                      "cublasLtMatrixLayoutCreate(B)"))
    return std::move(e);
  if (Error e = check(api->layoutCreate(&plan->layoutB, in, uint64_t(p.k),
                                        uint64_t(p.m), p.lda),
                      "cublasLtMatrixLayoutCreate(A)"))
    return std::move(e);
  if (Error e = check(api->layoutCreate(&plan->layoutC, out, uint64_t(p.n),
                                        uint64_t(p.m), p.ldc),
                      "cublasLtMatrixLayoutCreate(C)"))
    return std::move(e);

  void *preference = nullptr;
  if (Error e = check(api->preferenceCreate(&preference),
                      "cublasLtMatmulPreferenceCreate"))
    return std::move(e);
  uint64_t maxWorkspace = workspaceBytes;
  int status = api->preferenceSetAttribute(preference, kPrefMaxWorkspace,
                                           &maxWorkspace, sizeof(maxWorkspace));
  HeuristicResult best = {};
  int found = 0;
  if (status == kStatusSuccess)
    status = api->heuristic(handle, plan->desc, plan->layoutA, plan->layoutB,
                            plan->layoutC, plan->layoutC, preference, 1, &best,
                            &found);
  api->preferenceDestroy(preference);
  if (Error e = check(status, "cublasLtMatmulAlgoGetHeuristic"))
    return std::move(e);
  if (found < 1 || best.state != kStatusSuccess)
    return error("cuBLASLt has no algorithm for " + p.inputType + " -> " +
                 p.outputType + " " + std::to_string(p.m) + "x" +
                 std::to_string(p.n) + "x" + std::to_string(p.k));
  std::copy(std::begin(best.algo), std::end(best.algo), plan->algo);
  plan->workspaceBytes = best.workspaceSize;
  return std::move(plan);
}

Error CublasLt::Plan::run() const {
  const float alpha = 1.0f, beta = 0.0f;
  void *c = reinterpret_cast<void *>(problem.c);
  return lt->check(
      lt->api->matmul(lt->handle, desc, &alpha,
                      reinterpret_cast<const void *>(problem.b), layoutA,
                      reinterpret_cast<const void *>(problem.a), layoutB, &beta,
                      c, layoutC, c, layoutC, algo,
                      reinterpret_cast<void *>(workspaceAddress),
                      workspaceBytes, /*stream=*/nullptr),
      "cublasLtMatmul");
}

CublasLt::Plan::~Plan() {
  if (!lt)
    return;
  for (void *layout : {layoutA, layoutB, layoutC})
    if (layout)
      lt->api->layoutDestroy(layout);
  if (desc)
    lt->api->descDestroy(desc);
}

} // namespace tile::bench
