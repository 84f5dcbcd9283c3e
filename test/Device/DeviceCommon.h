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
#include <optional>
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

/// Device 0 opened into `device` for sm_90a code (`what`: the kernels'
/// name in the message); the reason to skip when there is no GPU or it is
/// another chip, else "".
inline std::string openSm90(std::optional<runtime::Device> &device,
                            const std::string &what) {
  llvm::Expected<runtime::Device> d = runtime::Device::open(0);
  if (!d)
    return "no GPU: " + llvm::toString(d.takeError());
  device.emplace(std::move(*d));
  if (device->computeMajor() != 9)
    return what + " is sm_90a code (wgmma); device 0 is " + device->smName() +
           ", not sm_90";
  return "";
}

} // namespace tile::device

#endif // TILE_TEST_DEVICE_DEVICECOMMON_H
