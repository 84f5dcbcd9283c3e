//===- LaunchManifest.cpp - the launch manifest schema --------------------===//
//
// Part of tile-mlir, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// The writer (toJSON) and the reader (LaunchManifest::parse) of the launch
// manifest: every JSON key of the format is spelled here and only here.
//
//===----------------------------------------------------------------------===//

#include "tile/Manifest/LaunchManifest.h"
#include "tile/Manifest/SanitizeReport.h"

#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MemoryBuffer.h"

using namespace tile::manifest;
namespace json = llvm::json;
using llvm::Expected;
using llvm::StringRef;

//===----------------------------------------------------------------------===//
// Names of the enums in the format
//===----------------------------------------------------------------------===//

namespace {

constexpr std::pair<ArgSpec::Kind, StringRef> kArgKinds[] = {
    {ArgSpec::Kind::MemRef, "memref"},
    {ArgSpec::Kind::Scalar, "scalar"},
    {ArgSpec::Kind::TensorMap, "tensor_map"}};

constexpr std::pair<ParamSpec::Kind, StringRef> kParamKinds[] = {
    {ParamSpec::Kind::Pointer, "pointer"},
    {ParamSpec::Kind::Integer, "integer"},
    {ParamSpec::Kind::Float, "float"},
    {ParamSpec::Kind::GridConstant, "grid_constant"},
    {ParamSpec::Kind::ByVal, "byval"},
    {ParamSpec::Kind::Other, "other"}};

template <typename Enum, size_t N>
StringRef nameOf(const std::pair<Enum, StringRef> (&table)[N], Enum value) {
  for (const auto &[e, name] : table)
    if (e == value)
      return name;
  return "";
}

template <typename Enum, size_t N>
std::optional<Enum> enumOf(const std::pair<Enum, StringRef> (&table)[N],
                           StringRef name) {
  for (const auto &[e, n] : table)
    if (n == name)
      return e;
  return std::nullopt;
}

template <typename Range> json::Array array(const Range &values) {
  json::Array out;
  for (const auto &v : values)
    out.push_back(v);
  return out;
}

json::Value dimsOrNull(const std::optional<std::array<unsigned, 3>> &dims) {
  if (!dims)
    return nullptr;
  return array(*dims);
}

//===----------------------------------------------------------------------===//
// Writer
//===----------------------------------------------------------------------===//

json::Value toJSON(const ArgSpec &a) {
  json::Object o{{"index", a.index},
                 {"type", a.type},
                 {"kind", nameOf(kArgKinds, a.kind)}};
  switch (a.kind) {
  case ArgSpec::Kind::MemRef:
    o["element_type"] = a.elementType;
    if (a.elementBits)
      o["element_bits"] = a.elementBits;
    o["shape"] = array(a.shape);
    if (a.strides)
      o["strides"] = array(*a.strides);
    if (a.offset)
      o["offset"] = *a.offset;
    if (!a.alignment.empty()) {
      json::Array needs;
      for (const AlignmentNeed &n : a.alignment)
        needs.push_back(json::Object{
            {"bytes", n.bytes}, {"by", n.by}, {"strides", array(n.strides)}});
      o["alignment"] = std::move(needs);
    }
    break;
  case ArgSpec::Kind::Scalar:
    if (a.scalarBits)
      o["bits"] = a.scalarBits;
    break;
  case ArgSpec::Kind::TensorMap:
    o["map"] = a.map;
    break;
  }
  return o;
}

json::Value toJSON(const ParamSpec &p) {
  json::Object o{{"index", p.index},
                 {"type", p.type},
                 {"kind", nameOf(kParamKinds, p.kind)},
                 {"bytes", p.bytes},
                 {"align", p.align}};
  if (p.sourceArg >= 0) {
    json::Object source{{"arg", p.sourceArg}};
    if (!p.part.empty())
      source["part"] = p.part;
    o["source"] = std::move(source);
  }
  return o;
}

json::Value toJSON(const TensorMapSpec &t) {
  return json::Object{{"param", t.param},
                      {"global_arg", t.globalArg},
                      {"lowered_param", t.loweredParam},
                      {"lowered_global_param", t.loweredGlobalParam},
                      {"data_type", tile::cuda::dataTypeName(t.dataType)},
                      {"encode", array(t.encode)},
                      {"dim_sources", array(t.dimSources)},
                      {"stride_sources", array(t.strideSources)},
                      {"stride_scales", array(t.strideScales)},
                      {"bytes_per_issue", t.bytesPerIssue},
                      {"issues", t.issues}};
}

json::Value toJSON(const DispatchRecord &d) {
  return json::Object{{"op", d.op}, {"variant", d.variant}, {"loc", d.loc}};
}

json::Value toJSON(const SanitizeCheckSpec &c) {
  return json::Object{{"kind", c.kind}, {"loc", c.loc}, {"what", c.what}};
}

json::Value toJSON(const KernelSpec &k);
json::Value toJSON(const ModuleSpec &m);

template <typename T> json::Array arrayOf(const std::vector<T> &values) {
  json::Array out;
  for (const T &v : values)
    out.push_back(toJSON(v));
  return out;
}

json::Value toJSON(const KernelSpec &k) {
  json::Object o{{"name", k.name},
                 {"args", arrayOf(k.args)},
                 {"params", arrayOf(k.params)},
                 {"tensor_maps", arrayOf(k.tensorMaps)},
                 {"block_dims", dimsOrNull(k.blockDims)},
                 {"cluster_dims", dimsOrNull(k.clusterDims)},
                 {"static_shared_bytes", k.staticSharedBytes},
                 {"dynamic_shared_bytes", k.dynamicSharedBytes},
                 {"dispatch", arrayOf(k.dispatch)},
                 {"sanitize_checks", arrayOf(k.sanitizeChecks)}};
  if (!k.versionOf.empty())
    o["version_of"] = k.versionOf;
  if (k.programmaticLaunch)
    o["programmatic_launch"] = true;
  return o;
}

json::Value toJSON(const ModuleSpec &m) {
  json::Object o{{"name", m.name}, {"kernels", arrayOf(m.kernels)}};
  if (!m.chip.empty())
    o["chip"] = m.chip;
  return o;
}

//===----------------------------------------------------------------------===//
// Reader
//===----------------------------------------------------------------------===//

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
  /// An integer in [lo, hi]; `fallback` (no problem) when optional and absent.
  int64_t integer(const json::Object &o, StringRef key, const std::string &where,
                  int64_t lo, int64_t hi,
                  std::optional<int64_t> fallback = std::nullopt) {
    const json::Value *v = o.get(key);
    if (!v && fallback)
      return *fallback;
    std::optional<int64_t> i = v ? v->getAsInteger() : std::nullopt;
    if (!i) {
      fail(where + "." + key.str(), v ? "expected an integer" : "missing");
      return fallback.value_or(0);
    }
    if (*i < lo || *i > hi) {
      fail(where + "." + key.str(), llvm::formatv("{0} is outside [{1}, {2}]",
                                                  *i, lo, hi));
      return fallback.value_or(lo);
    }
    return *i;
  }
  unsigned count(const json::Object &o, StringRef key, const std::string &where,
                 std::optional<int64_t> fallback = std::nullopt) {
    return unsigned(integer(o, key, where, 0, UINT32_MAX, fallback));
  }
  std::string string(const json::Object &o, StringRef key,
                     const std::string &where, bool optional = false) {
    const json::Value *v = o.get(key);
    if (!v && optional)
      return "";
    std::optional<StringRef> s = v ? v->getAsString() : std::nullopt;
    if (!s)
      fail(where + "." + key.str(), v ? "expected a string" : "missing");
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
    if (values.size() != 3 ||
        llvm::any_of(values, [](int64_t d) { return d < 1 || d > UINT32_MAX; })) {
      fail(where + "." + key.str(), "expected three positive integers");
      return std::nullopt;
    }
    return std::array<unsigned, 3>{unsigned(values[0]), unsigned(values[1]),
                                   unsigned(values[2])};
  }
  /// Each object of the array `key`, read by `read(object, path)`.
  template <typename T, typename Fn>
  std::vector<T> each(const json::Object &o, StringRef key,
                      const std::string &where, Fn read, bool optional = false) {
    std::vector<T> out;
    if (optional && !o.get(key))
      return out;
    if (const json::Array *a = array(o, key, where))
      for (auto [i, v] : llvm::enumerate(*a)) {
        std::string at = where + "." + key.str() + "[" + std::to_string(i) + "]";
        if (const json::Object *element = object(&v, at))
          out.push_back(read(*element, at));
      }
    return out;
  }

  ArgSpec arg(const json::Object &o, const std::string &where);
  ParamSpec param(const json::Object &o, const std::string &where);
  TensorMapSpec tensorMap(const json::Object &o, const std::string &where);
  DispatchRecord dispatch(const json::Object &o, const std::string &where);
  SanitizeCheckSpec sanitizeCheck(const json::Object &o,
                                  const std::string &where);
  KernelSpec kernel(const json::Object &o, const std::string &where);
  ModuleSpec module(const json::Object &o, const std::string &where);
  void checkReferences(const KernelSpec &k, const std::string &at);

private:
  std::string origin;
  std::string problem;
};

ArgSpec Reader::arg(const json::Object &o, const std::string &where) {
  ArgSpec a;
  a.index = count(o, "index", where);
  a.type = string(o, "type", where);
  std::string kind = string(o, "kind", where);
  std::optional<ArgSpec::Kind> k = enumOf(kArgKinds, kind);
  if (!k) {
    if (!failed())
      fail(where + ".kind", "unknown argument kind '" + kind + "'");
    return a;
  }
  a.kind = *k;
  switch (a.kind) {
  case ArgSpec::Kind::MemRef:
    a.elementType = string(o, "element_type", where);
    a.elementBits = count(o, "element_bits", where, 0);
    a.shape = integers<llvm::SmallVector<int64_t, 5>>(o, "shape", where);
    if (o.get("strides"))
      a.strides = integers<llvm::SmallVector<int64_t, 5>>(o, "strides", where);
    if (o.get("offset"))
      a.offset = integer(o, "offset", where, 0, INT64_MAX);
    a.alignment = each<AlignmentNeed>(
        o, "alignment", where,
        [&](const json::Object &need, const std::string &at) {
          AlignmentNeed n;
          n.bytes = uint64_t(integer(need, "bytes", at, 1, INT32_MAX));
          n.by = string(need, "by", at);
          n.strides = integers<llvm::SmallVector<int64_t, 4>>(need, "strides", at);
          if (!failed() && !llvm::isPowerOf2_64(n.bytes))
            fail(at + ".bytes", "alignment " + std::to_string(n.bytes) +
                                    " is not a power of two");
          for (int64_t d : n.strides)
            if (!failed() && (d < 0 || d >= int64_t(a.shape.size())))
              fail(at + ".strides", "dim " + std::to_string(d) +
                                        " is not a dim of the memref");
          return n;
        },
        /*optional=*/true);
    break;
  case ArgSpec::Kind::Scalar:
    a.scalarBits = count(o, "bits", where, 0);
    break;
  case ArgSpec::Kind::TensorMap:
    a.map = int(integer(o, "map", where, 0, INT32_MAX));
    break;
  }
  return a;
}

ParamSpec Reader::param(const json::Object &o, const std::string &where) {
  ParamSpec p;
  p.index = count(o, "index", where);
  p.type = string(o, "type", where, /*optional=*/true);
  p.bytes = count(o, "bytes", where);
  p.align = std::max(1u, count(o, "align", where));
  p.kind = enumOf(kParamKinds, string(o, "kind", where))
               .value_or(ParamSpec::Kind::Other);
  if (const json::Object *source = o.getObject("source")) {
    p.sourceArg = int(integer(*source, "arg", where + ".source", 0, INT32_MAX));
    p.part = string(*source, "part", where + ".source", /*optional=*/true);
  } else {
    fail(where + ".source", "missing (the kernel's source signature is unknown)");
  }
  return p;
}

TensorMapSpec Reader::tensorMap(const json::Object &o, const std::string &where) {
  TensorMapSpec t;
  t.param = count(o, "param", where);
  t.globalArg = count(o, "global_arg", where);
  t.loweredParam = count(o, "lowered_param", where);
  t.loweredGlobalParam = count(o, "lowered_global_param", where);
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
  t.bytesPerIssue = integer(o, "bytes_per_issue", where, 0, INT64_MAX, 0);
  t.issues = integer(o, "issues", where, 0, INT64_MAX, 0);
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

DispatchRecord Reader::dispatch(const json::Object &o, const std::string &where) {
  return {string(o, "op", where), string(o, "variant", where),
          string(o, "loc", where)};
}

SanitizeCheckSpec Reader::sanitizeCheck(const json::Object &o,
                                        const std::string &where) {
  SanitizeCheckSpec c{string(o, "kind", where), string(o, "loc", where),
                      string(o, "what", where)};
  if (!failed() && !tile::sanitize::parseCheckKind(c.kind))
    fail(where + ".kind", "unknown sanitize check '" + c.kind + "'");
  return c;
}

KernelSpec Reader::kernel(const json::Object &o, const std::string &where) {
  KernelSpec k;
  k.name = string(o, "name", where);
  std::string at = where + "(" + k.name + ")";
  using namespace std::placeholders;
  k.args = each<ArgSpec>(o, "args", at, std::bind(&Reader::arg, this, _1, _2));
  k.params =
      each<ParamSpec>(o, "params", at, std::bind(&Reader::param, this, _1, _2));
  k.tensorMaps = each<TensorMapSpec>(
      o, "tensor_maps", at, std::bind(&Reader::tensorMap, this, _1, _2));
  k.blockDims = dims(o, "block_dims", at);
  k.clusterDims = dims(o, "cluster_dims", at);
  k.staticSharedBytes = integer(o, "static_shared_bytes", at, 0, INT64_MAX);
  k.dynamicSharedBytes = integer(o, "dynamic_shared_bytes", at, 0, INT64_MAX);
  k.dispatch = each<DispatchRecord>(o, "dispatch", at,
                                    std::bind(&Reader::dispatch, this, _1, _2),
                                    /*optional=*/true);
  k.sanitizeChecks = each<SanitizeCheckSpec>(
      o, "sanitize_checks", at,
      std::bind(&Reader::sanitizeCheck, this, _1, _2), /*optional=*/true);
  k.versionOf = string(o, "version_of", at, /*optional=*/true);
  if (const json::Value *v = o.get("programmatic_launch")) {
    std::optional<bool> b = v->getAsBoolean();
    if (!b)
      fail(at + ".programmatic_launch", "expected a boolean");
    k.programmaticLaunch = b.value_or(false);
  }
  if (!failed())
    checkReferences(k, at);
  return k;
}

/// Every index must name something that exists.
void Reader::checkReferences(const KernelSpec &k, const std::string &at) {
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
    else if (t.loweredGlobalParam >= k.params.size() ||
             k.params[t.loweredGlobalParam].kind != ParamSpec::Kind::Pointer)
      fail(at + ".tensor_maps", "lowered_global_param " +
                                    std::to_string(t.loweredGlobalParam) +
                                    " is not a pointer parameter");
    else
      for (int64_t source : llvm::concat<const int64_t>(t.dimSources,
                                                        t.strideSources))
        if (source >= int64_t(k.args[t.globalArg].shape.size()))
          fail(at + ".tensor_maps", "a source dim exceeds the memref's rank");
  }
}

ModuleSpec Reader::module(const json::Object &o, const std::string &where) {
  ModuleSpec m;
  m.name = string(o, "name", where, /*optional=*/true);
  m.chip = string(o, "chip", where, /*optional=*/true);
  using namespace std::placeholders;
  m.kernels = each<KernelSpec>(o, "kernels", where,
                               std::bind(&Reader::kernel, this, _1, _2));
  return m;
}

} // namespace

//===----------------------------------------------------------------------===//
// Public API
//===----------------------------------------------------------------------===//

json::Value tile::manifest::toJSON(const LaunchManifest &m) {
  json::Object o{{"version", m.version}, {"modules", arrayOf(m.modules)}};
  if (!m.chip.empty())
    o["chip"] = m.chip;
  if (!m.ptx.empty())
    o["ptx"] = m.ptx;
  if (!m.cubin.empty())
    o["cubin"] = m.cubin;
  return o;
}

std::string tile::manifest::toJSONText(const LaunchManifest &m) {
  return llvm::formatv("{0:2}", toJSON(m)).str() + "\n";
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
  int64_t version = reader.integer(*root, "version", "$", INT64_MIN, INT64_MAX);
  if (!reader.failed() && version != kVersion)
    reader.fail("$.version", "version " + std::to_string(version) +
                                 " is not the supported " +
                                 std::to_string(kVersion) +
                                 " (recompile with this tile-compile)");
  manifest.version = kVersion;
  manifest.chip = reader.string(*root, "chip", "$", /*optional=*/true);
  manifest.ptx = reader.string(*root, "ptx", "$", /*optional=*/true);
  manifest.cubin = reader.string(*root, "cubin", "$", /*optional=*/true);
  using namespace std::placeholders;
  if (!reader.failed())
    manifest.modules = reader.each<ModuleSpec>(
        *root, "modules", "$", std::bind(&Reader::module, &reader, _1, _2));
  if (reader.failed())
    return reader.error();
  // A version is launched with its primary's arguments.
  for (const KernelSpec *k : manifest.kernels()) {
    if (k->versionOf.empty())
      continue;
    const KernelSpec *primary = manifest.kernel(k->versionOf);
    std::string at = "$.kernels(" + k->name + ").version_of";
    if (!primary || primary == k || !primary->versionOf.empty())
      reader.fail(at, "'" + k->versionOf +
                          "' is not another kernel of the manifest that is "
                          "not itself a version");
    else if (primary->hostSignature() != k->hostSignature())
      reader.fail(at, "the version takes " + k->hostSignature() + ", '" +
                          primary->name + "' takes " +
                          primary->hostSignature());
    if (reader.failed())
      return reader.error();
  }
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

const KernelSpec *LaunchManifest::kernel(StringRef name) const {
  for (const ModuleSpec &m : modules)
    for (const KernelSpec &k : m.kernels)
      if (k.name == name)
        return &k;
  return nullptr;
}

std::vector<const KernelSpec *> LaunchManifest::kernels() const {
  std::vector<const KernelSpec *> out;
  for (const ModuleSpec &m : modules)
    for (const KernelSpec &k : m.kernels)
      out.push_back(&k);
  return out;
}

std::vector<const KernelSpec *>
LaunchManifest::versions(StringRef name) const {
  std::vector<const KernelSpec *> out;
  if (const KernelSpec *primary = kernel(name))
    out.push_back(primary);
  for (const KernelSpec *k : kernels())
    if (k->versionOf == name && k->name != name)
      out.push_back(k);
  return out;
}

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

std::optional<tile::cuda::TensorMapDataType>
tile::manifest::parseDataType(StringRef name) {
  return cuda::dataTypeFromName(name);
}

//===----------------------------------------------------------------------===//
// Equality (the round-trip tests compare whole manifests)
//===----------------------------------------------------------------------===//

bool ArgSpec::operator==(const ArgSpec &o) const {
  return std::tie(kind, index, type, elementType, elementBits, shape, strides,
                  offset, alignment, scalarBits, map) ==
         std::tie(o.kind, o.index, o.type, o.elementType, o.elementBits,
                  o.shape, o.strides, o.offset, o.alignment, o.scalarBits,
                  o.map);
}
bool AlignmentNeed::operator==(const AlignmentNeed &o) const {
  return std::tie(bytes, by, strides) == std::tie(o.bytes, o.by, o.strides);
}
bool ParamSpec::operator==(const ParamSpec &o) const {
  return std::tie(kind, index, type, bytes, align, sourceArg, part) ==
         std::tie(o.kind, o.index, o.type, o.bytes, o.align, o.sourceArg,
                  o.part);
}
bool TensorMapSpec::operator==(const TensorMapSpec &o) const {
  return std::tie(param, globalArg, loweredParam, loweredGlobalParam, dataType,
                  encode, dimSources, strideSources, strideScales,
                  bytesPerIssue, issues) ==
         std::tie(o.param, o.globalArg, o.loweredParam, o.loweredGlobalParam,
                  o.dataType, o.encode, o.dimSources, o.strideSources,
                  o.strideScales, o.bytesPerIssue, o.issues);
}
bool DispatchRecord::operator==(const DispatchRecord &o) const {
  return std::tie(op, variant, loc) == std::tie(o.op, o.variant, o.loc);
}
bool SanitizeCheckSpec::operator==(const SanitizeCheckSpec &o) const {
  return std::tie(kind, loc, what) == std::tie(o.kind, o.loc, o.what);
}
bool KernelSpec::operator==(const KernelSpec &o) const {
  return std::tie(name, args, params, tensorMaps, blockDims, clusterDims,
                  staticSharedBytes, dynamicSharedBytes, dispatch,
                  sanitizeChecks, versionOf, programmaticLaunch) ==
         std::tie(o.name, o.args, o.params, o.tensorMaps, o.blockDims,
                  o.clusterDims, o.staticSharedBytes, o.dynamicSharedBytes,
                  o.dispatch, o.sanitizeChecks, o.versionOf,
                  o.programmaticLaunch);
}
bool ModuleSpec::operator==(const ModuleSpec &o) const {
  return std::tie(name, chip, kernels) == std::tie(o.name, o.chip, o.kernels);
}
bool LaunchManifest::operator==(const LaunchManifest &o) const {
  return std::tie(version, chip, ptx, cubin, modules) ==
         std::tie(o.version, o.chip, o.ptx, o.cubin, o.modules);
}
