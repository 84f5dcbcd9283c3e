//===- Dialect.cpp - the tile dialect's C API -------------------------------===//
//
// Part of tile-mlir, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "tile-c/Dialect.h"
#include "tile/Dialect/Tile/IR/TileDialect.h"
#include "tile/Registration/Registration.h"

#include "mlir/CAPI/IR.h"
#include "mlir/CAPI/Registration.h"
#include "mlir/CAPI/Support.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/AsmParser/AsmParser.h"

#include <mutex>

using namespace mlir;

MLIR_DEFINE_CAPI_DIALECT_REGISTRATION(Tile, tile, tile::TileDialect)

void tileRegisterAllDialects(MlirDialectRegistry registry) {
  tile::registerAllDialects(*unwrap(registry));
}

void tileRegisterPasses(void) {
  static std::once_flag once;
  std::call_once(once, [] { tile::registerAllPasses(); });
}

void tileRegisterBuiltinVariants(void) { tile::registerBuiltinVariantsOnce(); }

MlirAttribute tileLayoutAttrParse(MlirContext context, MlirStringRef body) {
  std::string text = "#tile.layout<" + unwrap(body).str() + ">";
  MLIRContext *ctx = unwrap(context);
  ctx->getOrLoadDialect<tile::TileDialect>();
  Attribute attr = parseAttribute(text, ctx);
  if (!attr || !isa<tile::LayoutAttr>(attr))
    return MlirAttribute{nullptr};
  return wrap(attr);
}

bool tileAttributeIsALayout(MlirAttribute attr) {
  return isa<tile::LayoutAttr>(unwrap(attr));
}

int64_t tileLayoutAttrGetSize(MlirAttribute layout) {
  return cast<tile::LayoutAttr>(unwrap(layout)).getLayout().size();
}

int64_t tileLayoutAttrGetCosize(MlirAttribute layout) {
  return cast<tile::LayoutAttr>(unwrap(layout))
      .getLayout()
      .cosize(tile::Axis::m);
}

MlirType tileBufferTypeGet(MlirContext context, intptr_t rank,
                           const int64_t *shape, MlirType elementType,
                           TileMemoryScope scope, MlirAttribute layout) {
  MLIRContext *ctx = unwrap(context);
  ctx->getOrLoadDialect<tile::TileDialect>();
  if (unsigned(scope) > unsigned(TileMemoryScopeLocal)) {
    emitError(UnknownLoc::get(ctx))
        << "unknown memory scope " << int(scope)
        << "; expected global (0), shared (1), tmem (2) or local (3)";
    return MlirType{nullptr};
  }
  tile::LayoutAttr layoutAttr;
  if (!mlirAttributeIsNull(layout)) {
    layoutAttr = dyn_cast<tile::LayoutAttr>(unwrap(layout));
    if (!layoutAttr) {
      emitError(UnknownLoc::get(ctx)) << "a buffer's layout must be a "
                                         "#tile.layout, not "
                                      << unwrap(layout);
      return MlirType{nullptr};
    }
  }
  Location loc = UnknownLoc::get(ctx);
  return wrap(tile::BufferType::getChecked(
      [&] { return emitError(loc); }, ctx,
      llvm::ArrayRef<int64_t>(shape, rank), unwrap(elementType),
      tile::MemoryScope(scope), layoutAttr));
}

bool tileTypeIsABuffer(MlirType type) {
  return isa<tile::BufferType>(unwrap(type));
}

TileMemoryScope tileBufferTypeGetScope(MlirType buffer) {
  return TileMemoryScope(cast<tile::BufferType>(unwrap(buffer)).getScope());
}

MlirAttribute tileBufferTypeGetLayout(MlirType buffer) {
  return wrap(cast<tile::BufferType>(unwrap(buffer)).getLayout());
}
