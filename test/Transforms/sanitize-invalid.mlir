// --tile-sanitize refuses a module that already defines its runtime
// symbols (a module sanitized twice), and a zero timeout.
// RUN: tile-opt --tile-sanitize %s -split-input-file -verify-diagnostics
// RUN: not tile-opt --tile-sanitize=timeout-ms=0 %s -split-input-file 2>&1 | FileCheck %s --check-prefix=ZERO
// ZERO: error: --tile-sanitize: timeout-ms must be at least 1

gpu.module @twice [#nvvm.target<chip = "sm_90a">] {
  // expected-error @below {{'__tile_sanitize_report' is reserved for --tile-sanitize (is the module sanitized twice?)}}
  llvm.mlir.global external @__tile_sanitize_report(0 : i64) {addr_space = 1 : i32} : i64
}

// -----

gpu.module @fail_function [#nvvm.target<chip = "sm_90a">] {
  // expected-error @below {{'__tile_sanitize_fail' is reserved for --tile-sanitize}}
  llvm.func @__tile_sanitize_fail() {
    llvm.return
  }
}
