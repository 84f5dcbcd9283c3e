// tile-compile reports bad input as diagnostics and a non-zero exit, never a
// crash, and writes no output when it fails.
// RUN: not tile-compile --check %s -o %t.none.ptx 2>&1 | FileCheck %s --check-prefix=NO-MODULE
// RUN: not tile-compile --check %S/Inputs/two-modules.mlir -o %t.two.ptx 2>&1 | FileCheck %s --check-prefix=TWO
// RUN: not tile-compile --check %S/Inputs/old-ptx.mlir --chip sm_100a -o %t.old.ptx 2>&1 | FileCheck %s --check-prefix=OLD-PTX
// RUN: tile-compile --check %S/Inputs/old-ptx.mlir -o %t.ok.ptx
// RUN: not tile-compile --check %S/Inputs/old-ptx.mlir --chip gfx90a -o %t.gfx.ptx 2>&1 | FileCheck %s --check-prefix=CHIP
// RUN: not tile-compile --check %S/Inputs/no-variant.mlir -o %t.nv.ptx --manifest %t.nv.json 2>&1 | FileCheck %s --check-prefix=NO-VARIANT
// RUN: not test -e %t.nv.ptx
// RUN: not test -e %t.nv.json
// RUN: not tile-compile --check %S/Inputs/too-much-shared.mlir -o %t.smem.ptx --manifest %t.smem.json 2>&1 | FileCheck %s --check-prefix=SHARED
// RUN: not test -e %t.smem.ptx
// RUN: not tile-compile --check %S/Inputs/does-not-exist.mlir -o %t.missing.ptx 2>&1 | FileCheck %s --check-prefix=MISSING

// NO-MODULE: error: tile-compile needs exactly one gpu.module (one PTX file), found 0
// TWO: error: tile-compile needs exactly one gpu.module (one PTX file), found 2
// OLD-PTX: old-ptx.mlir:1:1: error: sm_100a needs PTX ISA 8.6 to 9.0; the #nvvm.target asks for 8.0
// CHIP: error: unknown chip 'gfx90a'; known chips: sm_80, sm_86,
// NO-VARIANT: no-variant.mlir:4:5: error: no variant of tile.copy_async can implement this op on sm_90a
// NO-VARIANT: note: dsmem (priority 10): rejected: single_thread — issued by a warp; one thread issues bulk copies (exec thread); rejected: has_mbar — no mbar operand: the destination CTA's mbarrier tracks completion
// SHARED: too-much-shared.mlir:3:3: error: kernel @k needs 245760 bytes of shared memory (240 KiB) but sm_90a allows 232448 per block (227 KiB): %0 131072 B, %1 114688 B
// SHARED: too-much-shared.mlir:4:10: note: %0: 131072 B at offset 0 of the dynamic segment
// SHARED: too-much-shared.mlir:5:10: note: %1: 114688 B at offset 131072 of the dynamic segment
// MISSING: does-not-exist.mlir

func.func @host_only() {
  return
}
