// RUN: tile-opt %s --tile-select-variants -split-input-file -verify-diagnostics

// Every tcgen05_cp refusal names its rule. `dispatch = "tcgen05_cp"` keeps
// the notes to the one variant.

!u8t = !tile.buffer<32x128xui8, tmem, #tile.layout<S[(32,128):(1@TLane,1@TCol)] + R[4:32@TLane]>>
!sw128 = !tile.buffer<64x128xui8, shared, #tile.layout<S[(64,128):(128,1)], swizzle<3,4,3>>>

// A 128B-swizzled source starting at row 4: mid-atom.
func.func @mid_atom(%s: !sw128, %taddr: i32) {
  %t = tile.tmem_buffer %taddr : !u8t
  // expected-error @+2 {{forced variant 'tcgen05_cp' cannot implement this tile.copy_async on sm_100a}}
  // expected-note @+1 {{tcgen05_cp (priority 10): declined — 32x128b.warpx4: shared start byte 512 is row 4 of a 128-byte swizzle atom: a swizzled tile must start at an atom's first row}}
  tile.copy_async %s[4, 0] to %t[0, 0] sizes [32, 128] exec thread {dispatch = "tcgen05_cp"} : !sw128 to !u8t
  return
}

// -----

// Core matrices 136 bytes apart: SBO is not a multiple of 16.
!odd = !tile.buffer<32x16xui8, shared, #tile.layout<S[(4,8,16):(136,16,1)]>>
!t16 = !tile.buffer<32x16xui8, tmem, #tile.layout<S[(32,16):(1@TLane,1@TCol)] + R[4:32@TLane]>>
func.func @sbo(%s: !odd, %taddr: i32) {
  %t = tile.tmem_buffer %taddr : !t16
  // expected-error @+2 {{forced variant 'tcgen05_cp' cannot implement}}
  // expected-note @+1 {{tcgen05_cp (priority 10): declined — 32x128b.warpx4: SBO = 136 bytes (rows 0 -> 8) is not 16-byte aligned}}
  tile.copy_async %s[0, 0] to %t[0, 0] sizes [32, 16] exec thread {dispatch = "tcgen05_cp"} : !odd to !t16
  return
}

// -----

// Columns 2.. of the tensor-memory tile: 8 bytes into a 32-bit column run.
!u8s = !tile.buffer<32x16xui8, shared, #tile.layout<S[(32,16):(16,1)]>>
!shifted = !tile.buffer<32x16xui8, tmem, #tile.layout<S[(32,16):(1@TLane,1@TCol)] + R[4:32@TLane] + 8@TCol>>
func.func @column(%s: !u8s, %taddr: i32) {
  %t = tile.tmem_buffer %taddr : !shifted
  // expected-error @+2 {{forced variant 'tcgen05_cp' cannot implement}}
  // expected-note @+1 {{tcgen05_cp (priority 10): declined — 32x128b.warpx4: tensor-memory column offset 8 column bytes is not 128-bit aligned (a multiple of 4 columns)}}
  tile.copy_async %s[0, 0] to %t[0, 0] sizes [32, 16] exec thread {dispatch = "tcgen05_cp"} : !u8s to !shifted
  return
}

// -----

// A warpx4 broadcast starting at lane 8 would write lanes up to 135: the
// buffer type refuses it already (the planner's own lane check is unit-tested).
// expected-error @+1 {{layout reaches tensor-memory lane 135; tensor memory has 128 lanes}}
!low = !tile.buffer<32x16xui8, tmem, #tile.layout<S[(32,16):(1@TLane,1@TCol)] + R[4:32@TLane] + 8@TLane>>

// -----

// Three copies 32 lanes apart: no multicast does that.
!u8s = !tile.buffer<32x16xui8, shared, #tile.layout<S[(32,16):(16,1)]>>
!x3 = !tile.buffer<32x16xui8, tmem, #tile.layout<S[(32,16):(1@TLane,1@TCol)] + R[3:32@TLane]>>
func.func @replica(%s: !u8s, %taddr: i32) {
  %t = tile.tmem_buffer %taddr : !x3
  // expected-error @+2 {{forced variant 'tcgen05_cp' cannot implement}}
  // expected-note @+1 {{tcgen05_cp (priority 10): declined — tensor-memory replica R[3:32@TLane] matches no tcgen05.cp multicast (none; R[2:64@TLane] warpx2::02_13; R[2:32@TLane] warpx2::01_23; R[4:32@TLane] warpx4)}}
  tile.copy_async %s[0, 0] to %t[0, 0] sizes [32, 16] exec thread {dispatch = "tcgen05_cp"} : !u8s to !x3
  return
}

// -----

// A forced shape that does not fit the replica.
!u8s = !tile.buffer<32x16xui8, shared, #tile.layout<S[(32,16):(16,1)]>>
!t16 = !tile.buffer<32x16xui8, tmem, #tile.layout<S[(32,16):(1@TLane,1@TCol)] + R[4:32@TLane]>>
func.func @forced_shape(%s: !u8s, %taddr: i32) {
  %t = tile.tmem_buffer %taddr : !t16
  // expected-error @+2 {{forced variant 'tcgen05_cp' cannot implement}}
  // expected-note @+1 {{tcgen05_cp (priority 10): declined — cp_shape 128x256b does not fit the tensor-memory replica: the destination's multicast is 32x128b.warpx4}}
  tile.copy_async %s[0, 0] to %t[0, 0] sizes [32, 16] exec thread {dispatch = "tcgen05_cp", cp_shape = #tile.cp_shape<shape_128x256b>} : !u8s to !t16
  return
}

// -----

// The config and context predicates: issued by a warp, with an mbarrier,
// for Hopper, into a kernel-argument tensor-memory buffer.
!u8s = !tile.buffer<32x16xui8, shared, #tile.layout<S[(32,16):(16,1)]>>
!t16 = !tile.buffer<32x16xui8, tmem, #tile.layout<S[(32,16):(1@TLane,1@TCol)] + R[4:32@TLane]>>
gpu.module @hopper [#nvvm.target<chip = "sm_90a">] {
  gpu.func @everything_wrong(%s: !u8s, %t: !t16, %bar: !llvm.ptr<3>) kernel {
    // expected-error @+2 {{forced variant 'tcgen05_cp' cannot implement this tile.copy_async on sm_90a}}
    // expected-note @+1 {{tcgen05_cp (priority 10): rejected: single_thread — issued by a warp; one thread issues tcgen05.cp (exec thread); rejected: tmem_address — the tensor-memory buffer is a kernel argument; tensor memory is allocated in the kernel (tcgen05.alloc) and named with tile.tmem_buffer; rejected: supported_config — tcgen05.cp does not signal an mbarrier itself; drop mbar(...) and issue tcgen05.commit after the copy; rejected: tcgen05_target — tcgen05.cp needs one of sm_100a, sm_101a, not sm_90a}}
    tile.copy_async %s[0, 0] to %t[0, 0] sizes [32, 16] exec warp mbar(%bar) {dispatch = "tcgen05_cp"} : !u8s to !t16
    gpu.return
  }
}

// -----

// Region offsets must be static: the descriptor start is planned.
!u8s = !tile.buffer<64x16xui8, shared, #tile.layout<S[(64,16):(16,1)]>>
!t16 = !tile.buffer<32x16xui8, tmem, #tile.layout<S[(32,16):(1@TLane,1@TCol)] + R[4:32@TLane]>>
func.func @dynamic(%s: !u8s, %taddr: i32, %row: index) {
  %t = tile.tmem_buffer %taddr : !t16
  // expected-error @+2 {{forced variant 'tcgen05_cp' cannot implement}}
  // expected-note @+1 {{tcgen05_cp (priority 10): declined — the shared region has a dynamic offset; descriptor and tensor-memory offsets are planned at compile time}}
  tile.copy_async %s[%row, 0] to %t[0, 0] sizes [32, 16] exec thread {dispatch = "tcgen05_cp"} : !u8s to !t16
  return
}

// -----

// From the tcgen05_copy tutorial's matrix, M = 256 with TensorMemoryLayout
// block (128, 2): four consecutive tensor-memory columns alternate between
// rows r and r + 128, so no 16-byte shared chunk feeds them (the tutorial
// skips it: "no tcgen05.copy atom").
!c = !tile.buffer<256x16xf32, shared, #tile.layout<S[(256,2,8):(8,2048,1)], swizzle<1,2,3>>>
!acc = !tile.buffer<256x16xf32, tmem, #tile.layout<S[(2,128,8,2):(2@TCol,1@TLane,4@TCol,1@TCol)]>>
func.func @narrow_tmem_blocks(%s: !c, %taddr: i32) {
  %t = tile.tmem_buffer %taddr : !acc
  // expected-error @+2 {{forced variant 'tcgen05_cp' cannot implement}}
  // expected-note @+1 {{tcgen05_cp (priority 10): declined — no tcgen05.cp form fits; 128x256b: a row's 16 column bytes come from shared bytes that are not one contiguous chunk (column byte 8 reads shared byte +4096); 128x128b: a row's 16 column bytes come from shared bytes that are not one contiguous chunk (column byte 8 reads shared byte +4096); 4x256b: a row's 16 column bytes come from shared bytes that are not one contiguous chunk (column byte 8 reads shared byte +4096)}}
  tile.copy_async %s[0, 0] to %t[0, 0] sizes [256, 16] exec thread {dispatch = "tcgen05_cp"} : !c to !acc
  return
}

// -----

// The stated multicast must be the one the destination's replica stands for.
!s = !tile.buffer<32x16xui8, shared, #tile.layout<S[(32,16):(16,1)]>>
!t = !tile.buffer<32x16xui8, tmem, #tile.layout<S[(32,16):(1@TLane,1@TCol)] + R[4:32@TLane]>>
func.func @stated_multicast(%s: !s, %taddr: i32) {
  %t = tile.tmem_buffer %taddr : !t
  // expected-error @+2 {{forced variant 'tcgen05_cp' cannot implement}}
  // expected-note @+1 {{tcgen05_cp (priority 10): declined — cp_multicast warpx2::01_23 disagrees with the destination: its replica R[4:32@TLane] is multicast warpx4}}
  tile.copy_async %s[0, 0] to %t[0, 0] sizes [32, 16] exec thread {dispatch = "tcgen05_cp", cp_multicast = #tile.cp_multicast<warpx2_01_23>} : !s to !t
  return
}
