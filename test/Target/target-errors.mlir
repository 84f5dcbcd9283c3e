// Chips and PTX versions the toolchain cannot compile are diagnostics on
// the op or the module, never an LLVM fatal error: each case below used to
// abort in the NVPTX backend.
// RUN: tile-opt %s --tile-to-nvvm=check=1 -split-input-file -verify-diagnostics

// An unknown chip: the known ones are listed.
!sw = !tile.buffer<8x64xf16, shared>
gpu.module @unknown_chip [#nvvm.target<chip = "sm_1000a">] {
  gpu.func @k(%s: !sw, %d: !sw, %bar: !llvm.ptr<3>, %peer: i32) kernel {
    // expected-error @+1 {{unknown chip 'sm_1000a'; known chips: sm_80, sm_86, sm_89, sm_90, sm_90a, sm_100, sm_100a, sm_100f, sm_101, sm_101a, sm_101f, sm_103, sm_103a, sm_103f, sm_110, sm_110a, sm_110f, sm_120, sm_120a, sm_120f, sm_121, sm_121a, sm_121f}}
    tile.copy_async %s[0, 0] to %d[0, 0] sizes [8, 64] exec thread mbar(%bar) remote_cta(%peer) : !sw to !sw
    gpu.return
  }
}

// -----

// TMA with cta_group on sm_120a: the chip has TMA but no tensor memory.
!sw = !tile.buffer<8x64xf16, shared>
!gl = !tile.buffer<8x64xf16, global>
gpu.module @cta_group_sm120 [#nvvm.target<chip = "sm_120a">] {
  gpu.func @k(%m: memref<8x64xf16, 1>, %s: !sw, %bar: !llvm.ptr<3>) kernel {
    %g = tile.from_memref %m : memref<8x64xf16, 1> -> !gl
    // expected-error @+2 {{forced variant 'tma' cannot implement this tile.copy_async on sm_120a}}
    // expected-note @+1 {{tma (priority 20): rejected: cta_group_target — cta_group needs one of sm_100a, sm_100f, sm_101a, sm_101f, sm_103a, sm_103f, sm_110a, sm_110f, not sm_120a}}
    tile.copy_async %g[0, 0] to %s[0, 0] sizes [8, 64] exec thread mbar(%bar) {cta_group = 2 : i32, dispatch = "tma"} : !gl to !sw
    gpu.return
  }
}

// -----

!sw = !tile.buffer<8x64xf16, shared>
!gl = !tile.buffer<8x64xf16, global>
gpu.module @cta_group_sm121 [#nvvm.target<chip = "sm_121a">] {
  gpu.func @k(%m: memref<8x64xf16, 1>, %s: !sw, %bar: !llvm.ptr<3>) kernel {
    %g = tile.from_memref %m : memref<8x64xf16, 1> -> !gl
    // expected-error @+2 {{forced variant 'tma' cannot implement this tile.copy_async on sm_121a}}
    // expected-note @+1 {{tma (priority 20): rejected: cta_group_target — cta_group needs one of sm_100a, sm_100f, sm_101a, sm_101f, sm_103a, sm_103f, sm_110a, sm_110f, not sm_121a}}
    tile.copy_async %g[0, 0] to %s[0, 0] sizes [8, 64] exec thread mbar(%bar) {cta_group = 2 : i32, dispatch = "tma"} : !gl to !sw
    gpu.return
  }
}

// -----

// sm_101a is sm_110a from PTX 9.0: no tcgen05 for an sm_101a target at 9.0.
!u8s = !tile.buffer<32x16xui8, shared, #tile.layout<S[(32,16):(16,1)]>>
!u8t = !tile.buffer<32x16xui8, tmem, #tile.layout<S[(32,16):(1@TLane,1@TCol)] + R[4:32@TLane]>>
gpu.module @tcgen05_sm101_ptx90 [#nvvm.target<chip = "sm_101a", features = "+ptx90">] {
  gpu.func @k(%taddr: i32) kernel {
    %s = tile.alloc_shared : !u8s
    %t = tile.tmem_buffer %taddr : !u8t
    // expected-error @+2 {{forced variant 'tcgen05_cp' cannot implement this tile.copy_async on sm_101a}}
    // expected-note @+1 {{tcgen05_cp (priority 10): rejected: tcgen05_target — tcgen05 needs PTX ISA 8.6 to 8.8 on sm_101a; the #nvvm.target asks for 9.0}}
    tile.copy_async %s[0, 0] to %t[0, 0] sizes [32, 16] exec thread {dispatch = "tcgen05_cp"} : !u8s to !u8t
    gpu.return
  }
}

// -----

// A PTX version below the chip's first.
// expected-error @+1 {{sm_100f needs PTX ISA 8.8 to 9.0; the #nvvm.target asks for 8.6}}
gpu.module @sm100f_ptx86 [#nvvm.target<chip = "sm_100f", features = "+ptx86">] {
  gpu.func @k() kernel {
    gpu.return
  }
}

// -----

// expected-error @+1 {{sm_80 needs PTX ISA 7.0 to 9.0; the #nvvm.target asks for 6.0}}
gpu.module @sm80_ptx60 [#nvvm.target<chip = "sm_80", features = "+ptx60">] {
  gpu.func @k() kernel {
    gpu.return
  }
}

// -----

// A hand-written NVVM op is checked too.
gpu.module @raw_tcgen05_sm101_ptx90 [#nvvm.target<chip = "sm_101a", features = "+ptx90">] {
  gpu.func @k(%slot: !llvm.ptr<3>, %n: i32) kernel {
    // expected-error @+1 {{tcgen05 needs PTX ISA 8.6 to 8.8 on sm_101a; the #nvvm.target asks for 9.0}}
    nvvm.tcgen05.alloc %slot, %n : !llvm.ptr<3>, i32
    gpu.return
  }
}

// -----

// expected-error @+1 {{#nvvm.target features: '+ptx8.6' is not a PTX version feature LLVM knows (+ptx70 ... +ptx78, +ptx80 ... +ptx88, +ptx90)}}
gpu.module @bad_feature [#nvvm.target<chip = "sm_90a", features = "+ptx8.6">] {
  gpu.func @k() kernel {
    gpu.return
  }
}

// -----

// LLVM would ignore +ptx89 and fall back to the chip's default.
// expected-error @+1 {{#nvvm.target features: '+ptx89' is not a PTX version feature LLVM knows}}
gpu.module @unknown_version [#nvvm.target<chip = "sm_100a", features = "+ptx89">] {
  gpu.func @k() kernel {
    gpu.return
  }
}

// -----

// Hand-written block-scaled MMAs need PTX 8.8 like the variant's.
gpu.module @raw_block_scale [#nvvm.target<chip = "sm_100a", features = "+ptx86">] {
  gpu.func @k(%d: !llvm.ptr<6>, %a: i64, %b: i64, %idesc: i32, %acc: i1, %sfa: !llvm.ptr<6>, %sfb: !llvm.ptr<6>) kernel {
    // expected-error @+1 {{tcgen05.mma.block_scale needs PTX ISA 8.8 to 9.0 on sm_100a; the #nvvm.target asks for 8.6}}
    nvvm.tcgen05.mma.block_scale %d, %a, %b, %idesc, %acc, %sfa, %sfb {blockScale = #nvvm.tcgen05_mma_block_scale<block32>, ctaGroup = #nvvm.cta_group<cta_1>, kind = #nvvm.block_scale_kind<mxf8f6f4>} : (!llvm.ptr<6>, i64, i64, i32, i1, !llvm.ptr<6>, !llvm.ptr<6>)
    gpu.return
  }
}

// -----

// Async groups on a chip without their instructions: a bulk (TMA store)
// group and a wgmma group on sm_80 (cp.async groups exist there).
gpu.module @groups_sm80 [#nvvm.target<chip = "sm_80">] {
  gpu.func @k() kernel {
    tile.commit_group cp_async
    tile.wait_group cp_async, 0
    // expected-error @+1 {{cp.async.bulk.tensor does not exist on sm_80}}
    tile.commit_group bulk
    gpu.return
  }
}

// -----

gpu.module @wgmma_group_sm100a [#nvvm.target<chip = "sm_100a">] {
  gpu.func @k() kernel {
    // expected-error @+1 {{wgmma does not exist on sm_100a}}
    tile.wait_group wgmma, 0
    gpu.return
  }
}
