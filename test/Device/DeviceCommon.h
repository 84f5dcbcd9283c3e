//===- DeviceCommon.h - shared setup of the on-device programs --*- C++ -*-===//
//
// Part of tile-mlir, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// The device tests and benchmarks run from a folder that holds them and a
// `kernels/` folder of cubins + manifests compiled by tile-compile
// (build/device/ after `ninja -C build tile-device`). TILE_DEVICE_KERNELS
// overrides where the kernels are; a file missing there is taken from
// TILE_DEVICE_KERNELS_FALLBACK when set (the sanitized run: tile-compile's
// kernels from kernels-sanitized/, the rest from kernels/).
//
//===----------------------------------------------------------------------===//

#ifndef TILE_TEST_DEVICE_DEVICECOMMON_H
#define TILE_TEST_DEVICE_DEVICECOMMON_H

#include "tile/Runtime/Runtime.h"

#include <cstdlib>
#include <string>
#include <unistd.h>

namespace tile::device {

/// The kernels folder: $TILE_DEVICE_KERNELS, else kernels/ beside this
/// executable.
inline std::string kernelsDir() {
  if (const char *env = std::getenv("TILE_DEVICE_KERNELS"))
    return env;
  char self[4096] = {};
  ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
  std::string exe = n > 0 ? std::string(self, n) : std::string(".");
  return exe.substr(0, exe.rfind('/')) + "/kernels";
}

inline std::string kernelPath(const std::string &file) {
  std::string path = kernelsDir() + "/" + file;
  const char *fallback = std::getenv("TILE_DEVICE_KERNELS_FALLBACK");
  if (fallback && access(path.c_str(), F_OK) != 0)
    return std::string(fallback) + "/" + file;
  return path;
}

} // namespace tile::device

#endif // TILE_TEST_DEVICE_DEVICECOMMON_H
