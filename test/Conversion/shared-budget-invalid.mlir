// A kernel's shared memory (its dynamic segment plus the static shared
// memory it and its callees use) must fit its chip's limit per block:
// 232448 bytes (227 KiB) on sm_90a and sm_100a, 101376 (99 KiB) on sm_86.
// (test/Compile/errors.mlir: the same error from tile-compile.)
// RUN: tile-opt %s --tile-assign-shared-offsets -split-input-file -verify-diagnostics

// 240 KiB of buffers on sm_90a: an error naming each, a note at each.
gpu.module @too_big [#nvvm.target<chip = "sm_90a">] {
  // expected-error @+1 {{kernel @too_big needs 245760 bytes of shared memory (240 KiB) but sm_90a allows 232448 per block (227 KiB): %0 131072 B, %1 114688 B}}
  gpu.func @too_big() kernel {
    // expected-note @+1 {{%0: 131072 B at offset 0 of the dynamic segment}}
    %a = tile.alloc_shared {alignment = 16 : i64} : !tile.buffer<128x512xf16, shared>
    // expected-note @+1 {{%1: 114688 B at offset 131072 of the dynamic segment}}
    %b = tile.alloc_shared {alignment = 16 : i64} : !tile.buffer<112x512xf16, shared>
    gpu.return
  }
}

// -----

// Exactly the limit fits: no diagnostic.
gpu.module @at_the_limit [#nvvm.target<chip = "sm_100a">] {
  gpu.func @at_the_limit() kernel {
    %a = tile.alloc_shared {alignment = 16 : i64} : !tile.buffer<128x512xf16, shared>
    %b = tile.alloc_shared {alignment = 16 : i64} : !tile.buffer<101376xi8, shared>
    gpu.return
  }
}

// -----

// One byte over, counting the 1008 bytes that round a 1024-aligned base.
gpu.module @rounding [#nvvm.target<chip = "sm_100a">] {
  // expected-error @+1 {{kernel @rounding needs 232449 bytes of shared memory (227.0 KiB) but sm_100a allows 232448 per block (227 KiB): %0 131072 B, %1 100369 B, alignment padding 1008 B}}
  gpu.func @rounding() kernel {
    // expected-note @+1 {{%0: 131072 B at offset 0 of the dynamic segment}}
    %a = tile.alloc_shared : !tile.buffer<128x512xf16, shared, #tile.layout<S[(128,512):(512,1)], swizzle<3,3,3>>>
    // expected-note @+1 {{%1: 100369 B at offset 131072 of the dynamic segment}}
    %b = tile.alloc_shared {alignment = 16 : i64} : !tile.buffer<100369xi8, shared>
    gpu.return
  }
}

// -----

// Static shared memory counts too: a shared global, workgroup memory,
// nvgpu mbarriers (8 bytes each) and a callee's buffer (a static global),
// laid out in order at their alignments (the callee's 16-byte aligned
// buffer after the 4096-byte table at 4248: 8 bytes of padding).
gpu.module @static_memory [#nvvm.target<chip = "sm_90a">] {
  // expected-note @+1 {{@bar: 8 B of static shared memory}}
  llvm.mlir.global internal @bar() {addr_space = 3 : i32, alignment = 8 : i64} : i64
  // expected-note @+1 {{@table: 4096 B of static shared memory}}
  memref.global "private" @table : memref<1024xf32, #gpu.address_space<workgroup>>
  func.func private @helper() {
    // expected-note @+1 {{tile.alloc_shared in @helper: 256 B of static shared memory}}
    %s = tile.alloc_shared {alignment = 16 : i64} : !tile.buffer<64xf32, shared>
    return
  }
  // expected-error @+2 {{kernel @mixed needs 232864 bytes of shared memory (227.4 KiB) but sm_90a allows 232448 per block (227 KiB): %0 131072 B, %1 97280 B, %arg0 128 B, %2 (2 mbarriers) 16 B, @bar 8 B, @table 4096 B, tile.alloc_shared in @helper 256 B, alignment padding 8 B}}
  // expected-note @+1 {{%arg0: 128 B of static shared memory}}
  gpu.func @mixed() workgroup(%w : memref<32xf32, #gpu.address_space<workgroup>>) kernel {
    // expected-note @+1 {{%0: 131072 B at offset 0 of the dynamic segment}}
    %a = tile.alloc_shared {alignment = 16 : i64} : !tile.buffer<128x512xf16, shared>
    // expected-note @+1 {{%1: 97280 B at offset 131072 of the dynamic segment}}
    %b = tile.alloc_shared {alignment = 16 : i64} : !tile.buffer<95x512xf16, shared>
    // expected-note @+1 {{%2 (2 mbarriers): 16 B of static shared memory}}
    %bars = nvgpu.mbarrier.create -> !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>, num_barriers = 2>
    %p = llvm.mlir.addressof @bar : !llvm.ptr<3>
    %t = memref.get_global @table : memref<1024xf32, #gpu.address_space<workgroup>>
    func.call @helper() : () -> ()
    gpu.return
  }
}

// -----

// The limit is the chip's: 128 KiB fits sm_90a but not sm_86 (99 KiB).
gpu.module @small_chip [#nvvm.target<chip = "sm_86">] {
  // expected-error @+1 {{kernel @ring needs 131072 bytes of shared memory (128 KiB) but sm_86 allows 101376 per block (99 KiB): %0 131072 B}}
  gpu.func @ring() kernel {
    // expected-note @+1 {{%0: 131072 B at offset 0 of the dynamic segment}}
    %a = tile.alloc_shared {alignment = 16 : i64} : !tile.buffer<4x128x128xf16, shared>
    gpu.return
  }
}

// -----

// Without an #nvvm.target the chip option (default sm_100a) decides.
gpu.module @untargeted {
  // expected-error @+1 {{kernel @untargeted needs 245760 bytes of shared memory (240 KiB) but sm_100a allows 232448 per block (227 KiB)}}
  gpu.func @untargeted() kernel {
    // expected-note @+1 {{%0: 131072 B}}
    %a = tile.alloc_shared {alignment = 16 : i64} : !tile.buffer<128x512xf16, shared>
    // expected-note @+1 {{%1: 114688 B}}
    %b = tile.alloc_shared {alignment = 16 : i64} : !tile.buffer<112x512xf16, shared>
    gpu.return
  }
}
