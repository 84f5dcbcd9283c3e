//===- LaunchManifest.cpp - the compile driver's manifest, read back -------===//
//
// Part of tile-mlir, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "tile/Runtime/LaunchManifest.h"

#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"

using namespace tile::runtime;
namespace json = llvm::json;
using llvm::Expected;
using llvm::StringRef;

namespace {

/// Reads one manifest, remembering the first problem with its JSON path.
class Reader {
public:
  explicit Reader(StringRef origin) : origin(origin) {}

  bool failed() const { return !problem.empty(); }
  llvm::Error error() const {
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "manifest %s: %s", origin.c_str(),
                                   problem.c_str());
  }
  void fail(const std::string &where, const std::string &what) {
    if (problem.empty())
      problem = where + ": " + what;
  }

  const json::Object *object(const json::Value *v, const std::string &where) {
    const json::Object *o = v ? v->getAsObject() : nullptr;
    if (!o)
      fail(where, v ? "expected an object" : "missing");
    return o;
  }
  const json::Array *array(const json::Object &o, StringRef key,
                           const std::string &where) {
    const json::Array *a = o.getArray(key);
    if (!a)
      fail(where + "." + key.str(), o.get(key) ? "expected an array" : "missing");
    return a;
  }
  int64_t integer(const json::Object &o, StringRef key,
                  const std::string &where) {
    std::optional<int64_t> i = o.getInteger(key);
    if (!i)
      fail(where + "." + key.str(),
           o.get(key) ? "expected an integer" : "missing");
    return i.value_or(0);
  }
  std::string string(const json::Object &o, StringRef key,
                     const std::string &where) {
    std::optional<StringRef> s = o.getString(key);
    if (!s)
      fail(where + "." + key.str(), o.get(key) ? "expected a string" : "missing");
    return s.value_or("").str();
  }
  template <typename Vector>
  Vector integers(const json::Object &o, StringRef key,
                  const std::string &where) {
    Vector out;
    if (const json::Array *a = array(o, key, where))
      for (const json::Value &v : *a) {
        std::optional<int64_t> i = v.getAsInteger();
        if (!i) {
          fail(where + "." + key.str(), "expected integers");
          break;
        }
        out.push_back(*i);
      }
    return out;
  }
  /// `null` or three positive integers.
  std::optional<std::array<unsigned, 3>> dims(const json::Object &o,
                                              StringRef key,
                                              const std::string &where) {
    const json::Value *v = o.get(key);
    if (!v || v->kind() == json::Value::Null)
      return std::nullopt;
    auto values = integers<llvm::SmallVector<int64_t, 3>>(o, key, where);
    if (values.size() != 3 || llvm::any_of(values, [](int64_t d) { return d < 1; })) {
      fail(where + "." + key.str(), "expected three positive integers");
      return std::nullopt;
    }
    return std::array<unsigned, 3>{unsigned(values[0]), unsigned(values[1]),
                                   unsigned(values[2])};
  }

  ArgSpec arg(const json::Object &o, const std::string &where);
  ParamSpec param(const json::Object &o, const std::string &where);
  TensorMapSpec tensorMap(const json::Object &o, const std::string &where);
  KernelSpec kernel(const json::Object &o, const std::string &where);

private:
  std::string origin;
  std::string problem;
};

ArgSpec Reader::arg(const json::Object &o, const std::string &where) {
  ArgSpec a;
  a.index = integer(o, "index", where);
  a.type = string(o, "type", where);
  std::string kind = string(o, "kind", where);
  if (kind == "memref") {
    a.kind = ArgSpec::Kind::MemRef;
    a.elementType = string(o, "element_type", where);
    a.elementBits = o.getInteger("element_bits").value_or(0);
    a.shape = integers<llvm::SmallVector<int64_t, 5>>(o, "shape", where);
    if (o.get("strides"))
      a.strides = integers<llvm::SmallVector<int64_t, 5>>(o, "strides", where);
  } else if (kind == "scalar") {
    a.kind = ArgSpec::Kind::Scalar;
    a.scalarBits = o.getInteger("bits").value_or(0);
  } else if (kind == "tensor_map") {
    a.kind = ArgSpec::Kind::TensorMap;
    a.map = integer(o, "map", where);
  } else if (!failed()) {
    fail(where + ".kind", "unknown argument kind '" + kind + "'");
  }
  return a;
}

ParamSpec Reader::param(const json::Object &o, const std::string &where) {
  ParamSpec p;
  p.index = integer(o, "index", where);
  p.bytes = integer(o, "bytes", where);
  p.align = std::max<int64_t>(1, integer(o, "align", where));
  std::string kind = string(o, "kind", where);
  p.kind = kind == "pointer"         ? ParamSpec::Kind::Pointer
           : kind == "integer"       ? ParamSpec::Kind::Integer
           : kind == "float"         ? ParamSpec::Kind::Float
           : kind == "grid_constant" ? ParamSpec::Kind::GridConstant
                                     : ParamSpec::Kind::Other;
  if (const json::Object *source = o.getObject("source")) {
    p.sourceArg = integer(*source, "arg", where + ".source");
    p.part = source->getString("part").value_or("").str();
  } else {
    fail(where + ".source", "missing (the kernel's source signature is unknown)");
  }
  return p;
}

TensorMapSpec Reader::tensorMap(const json::Object &o, const std::string &where) {
  TensorMapSpec t;
  t.globalArg = integer(o, "global_arg", where);
  t.loweredParam = integer(o, "lowered_param", where);
  std::string type = string(o, "data_type", where);
  if (std::optional<tile::cuda::TensorMapDataType> d = parseDataType(type))
    t.dataType = *d;
  else if (!failed())
    fail(where + ".data_type", "unknown tensor-map data type '" + type + "'");
  t.encode = integers<llvm::SmallVector<int64_t, 24>>(o, "encode", where);
  t.dimSources = integers<llvm::SmallVector<int64_t, 5>>(o, "dim_sources", where);
  t.strideSources =
      integers<llvm::SmallVector<int64_t, 4>>(o, "stride_sources", where);
  t.strideScales =
      integers<llvm::SmallVector<int64_t, 4>>(o, "stride_scales", where);
  t.bytesPerIssue = o.getInteger("bytes_per_issue").value_or(0);
  t.issues = o.getInteger("issues").value_or(0);
  if (failed())
    return t;
  // rank, rank dims, rank-1 strides, rank box, rank element strides, 4 enums.
  int64_t rank = t.encode.empty() ? 0 : t.encode[0];
  if (rank < 1 || rank > int64_t(tile::cuda::kMaxTensorMapRank) ||
      int64_t(t.encode.size()) != 4 * rank + 4)
    fail(where + ".encode", "expected rank then 4 * rank + 3 values");
  else if (int64_t(t.dimSources.size()) != rank ||
           int64_t(t.strideSources.size()) != rank - 1 ||
           int64_t(t.strideScales.size()) != rank - 1)
    fail(where, "dim_sources / stride_sources / stride_scales do not match "
                "rank " + std::to_string(rank));
  return t;
}

KernelSpec Reader::kernel(const json::Object &o, const std::string &where) {
  KernelSpec k;
  k.name = string(o, "name", where);
  std::string at = where + "(" + k.name + ")";
  if (const json::Array *args = array(o, "args", at))
    for (auto [i, v] : llvm::enumerate(*args))
      if (const json::Object *a =
              object(&v, at + ".args[" + std::to_string(i) + "]"))
        k.args.push_back(arg(*a, at + ".args[" + std::to_string(i) + "]"));
  if (const json::Array *params = array(o, "params", at))
    for (auto [i, v] : llvm::enumerate(*params))
      if (const json::Object *p =
              object(&v, at + ".params[" + std::to_string(i) + "]"))
        k.params.push_back(param(*p, at + ".params[" + std::to_string(i) + "]"));
  if (const json::Array *maps = array(o, "tensor_maps", at))
    for (auto [i, v] : llvm::enumerate(*maps))
      if (const json::Object *m =
              object(&v, at + ".tensor_maps[" + std::to_string(i) + "]"))
        k.tensorMaps.push_back(
            tensorMap(*m, at + ".tensor_maps[" + std::to_string(i) + "]"));
  k.blockDims = dims(o, "block_dims", at);
  k.clusterDims = dims(o, "cluster_dims", at);
  k.staticSharedBytes = integer(o, "static_shared_bytes", at);
  k.dynamicSharedBytes = integer(o, "dynamic_shared_bytes", at);
  if (failed())
    return k;
  // Cross-references: every index must name something that exists.
  for (const ParamSpec &p : k.params)
    if (p.sourceArg < 0 || p.sourceArg >= int(k.args.size()))
      fail(at + ".params[" + std::to_string(p.index) + "]",
           "source argument " + std::to_string(p.sourceArg) + " does not exist");
  for (const ArgSpec &a : k.args)
    if (a.kind == ArgSpec::Kind::TensorMap &&
        (a.map < 0 || a.map >= int(k.tensorMaps.size())))
      fail(at + ".args[" + std::to_string(a.index) + "]",
           "tensor map " + std::to_string(a.map) + " does not exist");
  for (const TensorMapSpec &t : k.tensorMaps) {
    if (t.globalArg >= k.args.size() ||
        k.args[t.globalArg].kind != ArgSpec::Kind::MemRef)
      fail(at + ".tensor_maps", "global_arg " + std::to_string(t.globalArg) +
                                    " is not a memref argument");
    else if (t.loweredParam >= k.params.size() ||
             k.params[t.loweredParam].kind != ParamSpec::Kind::GridConstant)
      fail(at + ".tensor_maps", "lowered_param " +
                                    std::to_string(t.loweredParam) +
                                    " is not a grid_constant parameter");
    else
      for (int64_t source : llvm::concat<const int64_t>(t.dimSources,
                                                        t.strideSources))
        if (source >= int64_t(k.args[t.globalArg].shape.size()))
          fail(at + ".tensor_maps", "a source dim exceeds the memref's rank");
  }
  return k;
}

} // namespace

unsigned KernelSpec::numHostArgs() const {
  return llvm::count_if(
      args, [](const ArgSpec &a) { return a.kind != ArgSpec::Kind::TensorMap; });
}

std::string KernelSpec::hostSignature() const {
  std::string out = "(";
  for (const ArgSpec &a : args) {
    if (a.kind == ArgSpec::Kind::TensorMap)
      continue;
    if (out.size() > 1)
      out += ", ";
    out += a.type;
  }
  return out + ")";
}

const KernelSpec *LaunchManifest::kernel(StringRef name) const {
  for (const KernelSpec &k : kernels)
    if (k.name == name)
      return &k;
  return nullptr;
}

std::optional<tile::cuda::TensorMapDataType>
tile::runtime::parseDataType(StringRef name) {
  for (unsigned i = 0;
       i <= unsigned(cuda::TensorMapDataType::Packed16U6Align16B); ++i)
    if (cuda::dataTypeName(cuda::TensorMapDataType(i)) == name)
      return cuda::TensorMapDataType(i);
  return std::nullopt;
}

Expected<LaunchManifest> LaunchManifest::parse(StringRef text,
                                               StringRef origin) {
  Expected<json::Value> value = json::parse(text);
  if (!value)
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "manifest %s is not JSON: %s",
                                   origin.str().c_str(),
                                   llvm::toString(value.takeError()).c_str());
  Reader reader(origin);
  LaunchManifest manifest;
  const json::Object *root = reader.object(&*value, "$");
  if (!root)
    return reader.error();
  manifest.version = reader.integer(*root, "version", "$");
  if (!reader.failed() && manifest.version != kSupportedManifestVersion)
    reader.fail("$.version",
                "version " + std::to_string(manifest.version) +
                    " is not the supported " +
                    std::to_string(kSupportedManifestVersion) +
                    " (recompile with this tile-compile)");
  manifest.chip = root->getString("chip").value_or("").str();
  if (const json::Array *modules = reader.array(*root, "modules", "$"))
    for (auto [m, module] : llvm::enumerate(*modules)) {
      std::string at = "$.modules[" + std::to_string(m) + "]";
      const json::Object *mo = reader.object(&module, at);
      if (!mo)
        break;
      if (const json::Array *kernels = reader.array(*mo, "kernels", at))
        for (auto [k, kernel] : llvm::enumerate(*kernels)) {
          std::string kat = at + ".kernels[" + std::to_string(k) + "]";
          if (const json::Object *ko = reader.object(&kernel, kat))
            manifest.kernels.push_back(reader.kernel(*ko, kat));
        }
    }
  if (reader.failed())
    return reader.error();
  return manifest;
}

Expected<LaunchManifest> LaunchManifest::load(StringRef path) {
  llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> file =
      llvm::MemoryBuffer::getFile(path, /*IsText=*/true);
  if (!file)
    return llvm::createStringError(file.getError(),
                                   "cannot read the manifest %s: %s",
                                   path.str().c_str(),
                                   file.getError().message().c_str());
  return parse((*file)->getBuffer(), path);
}
