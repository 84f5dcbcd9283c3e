//===- Tcgen05CpForm.cpp - the forms of tcgen05.cp ------------------------===//
//
// Part of tile-mlir, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "tile/Target/CUDA/Tcgen05CpForm.h"

using namespace tile::cuda;

llvm::StringRef tile::cuda::tcgen05CpShapeName(Tcgen05CpShape shape) {
  switch (shape) {
  case Tcgen05CpShape::S128x256b: return "128x256b";
  case Tcgen05CpShape::S4x256b: return "4x256b";
  case Tcgen05CpShape::S128x128b: return "128x128b";
  case Tcgen05CpShape::S64x128b: return "64x128b";
  case Tcgen05CpShape::S32x128b: return "32x128b";
  }
  return "?";
}

llvm::StringRef
tile::cuda::tcgen05CpMulticastName(Tcgen05CpMulticast multicast) {
  switch (multicast) {
  case Tcgen05CpMulticast::None: return "";
  case Tcgen05CpMulticast::Warpx2_02_13: return "warpx2::02_13";
  case Tcgen05CpMulticast::Warpx2_01_23: return "warpx2::01_23";
  case Tcgen05CpMulticast::Warpx4: return "warpx4";
  }
  return "?";
}

llvm::StringRef
tile::cuda::tcgen05CpSourceFormatName(Tcgen05CpSourceFormat format) {
  switch (format) {
  case Tcgen05CpSourceFormat::None: return "";
  case Tcgen05CpSourceFormat::B6x16P32: return "b6x16_p32";
  case Tcgen05CpSourceFormat::B4x16P64: return "b4x16_p64";
  }
  return "?";
}
