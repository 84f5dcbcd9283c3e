// RUN: tile-opt %s -split-input-file -verify-diagnostics

func.func @columns_not_a_power_of_two() {
  // expected-error @+1 {{'tile.tmem_alloc' op allocates 96 tensor-memory columns; tcgen05.alloc takes a power of two from 32 to 512}}
  %t = tile.tmem_alloc 96 columns
  return
}

// -----

func.func @too_few_columns(%t: i32) {
  // expected-error @+1 {{'tile.tmem_dealloc' op allocates 16 tensor-memory columns; tcgen05.alloc takes a power of two from 32 to 512}}
  tile.tmem_dealloc %t, 16 columns
  return
}

// -----

func.func @columns_beyond_tensor_memory() {
  // expected-error @+1 {{allocates 1024 tensor-memory columns}}
  %t = tile.tmem_alloc 1024 columns
  return
}

// -----

!bars = !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>, num_barriers = 2>
func.func @index_outside_group(%bars: !bars) {
  %c2 = arith.constant 2 : index
  // expected-error @+1 {{'tile.mma_commit' op barrier index 2 is outside the group of 2 barrier(s)}}
  tile.mma_commit mbar(%bars[%c2] : !bars) exec thread
  return
}

// -----

!bars = !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>, num_barriers = 2>
func.func @group_without_index(%bars: !bars) {
  // expected-error @+1 {{'tile.mma_commit' op a barrier of an !nvgpu.mbarrier.group needs an index: mbar(%bars[%i] : ...)}}
  tile.mma_commit mbar(%bars : !bars) exec thread
  return
}

// -----

func.func @pointer_with_index(%bar: !llvm.ptr<3>, %i: index, %c: i32) {
  // expected-error @+1 {{'tile.mbarrier_arrive_remote' op an !llvm.ptr<3> barrier takes no index; index an !nvgpu.mbarrier.group}}
  tile.mbarrier_arrive_remote %bar[%i], cta %c
  return
}

// -----

func.func @remote_arrive_warp_scope(%bar: !llvm.ptr<3>, %c: i32) {
  // expected-error @+1 {{'tile.mbarrier_arrive_remote' op releases at cta or cluster scope, not warp}}
  tile.mbarrier_arrive_remote %bar, cta %c scope warp
  return
}

// -----

!global_bars = !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<global>, num_barriers = 2>
!g = !tile.buffer<8x64xf16, global>
!s = !tile.buffer<8x64xf16, shared>
func.func @barrier_outside_shared(%bars: !global_bars, %g: !g, %s: !s) {
  %c0 = arith.constant 0 : index
  // expected-error @+1 {{'tile.copy_async' op mbarriers live in shared memory: the group's memorySpace must be #gpu.address_space<workgroup>}}
  tile.copy_async %g[0, 0] to %s[0, 0] sizes [8, 64] exec thread
      mbar(%bars[%c0] : !global_bars) : !g to !s
  return
}

// -----

!bars = !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>, num_barriers = 1>
func.func @commit_by_warpgroup(%bars: !bars) {
  %c0 = arith.constant 0 : index
  // expected-error @+1 {{'tile.mma_commit' op is issued by one thread: exec thread, or exec warp for the lane elect.sync picks}}
  tile.mma_commit mbar(%bars[%c0] : !bars) exec warpgroup
  return
}

// -----

func.func @read_on_cp_async() {
  // expected-error @+1 {{'tile.wait_group' op 'read' waits for bulk copies to finish reading shared memory; cp_async groups have no such form}}
  tile.wait_group cp_async, 0 {read}
  return
}

// -----

func.func @read_on_wgmma() {
  // expected-error @+1 {{'tile.wait_group' op 'read' waits for bulk copies to finish reading shared memory; wgmma groups have no such form}}
  tile.wait_group wgmma, 0 {read}
  return
}

// -----

func.func @too_many_pending() {
  // expected-error @+1 {{'tile.wait_group' op attribute 'pending' failed to satisfy constraint}}
  tile.wait_group bulk, 64
  return
}

// -----

func.func @unknown_fence() {
  // expected-error @+1 {{unknown 'proxy_generic'; expected proxy_async, before_thread_sync, after_thread_sync or mbarrier_init}}
  tile.fence proxy_generic
  return
}

// -----

func.func @unknown_group() {
  // expected-error @+1 {{unknown 'cp_asyn'; expected bulk, wgmma or cp_async}}
  tile.commit_group cp_asyn
  return
}

// -----

func.func @named_barrier_zero() {
  %id = arith.constant 0 : i32
  %n = arith.constant 128 : i32
  // expected-error @+1 {{'tile.named_barrier' op barrier id 0 is not one of 1..7 (0 is gpu.barrier's, the whole CTA; 8..15 are the cross-warp reductions' scratch barriers)}}
  tile.named_barrier id(%id) threads(%n)
  return
}

// -----

func.func @named_barrier_scratch_id() {
  %id = arith.constant 8 : i32
  %n = arith.constant 128 : i32
  // expected-error @+1 {{'tile.named_barrier' op barrier id 8 is not one of 1..7}}
  tile.named_barrier arrive id(%id) threads(%n)
  return
}

// -----

func.func @named_barrier_not_whole_warps(%id: i32) {
  %n = arith.constant 100 : i32
  // expected-error @+1 {{'tile.named_barrier' op thread count 100 is not a multiple of 32 from 32 to 1024 (a warp arrives as 32 threads)}}
  tile.named_barrier id(%id) threads(%n)
  return
}

// -----

func.func @named_barrier_too_many(%id: i32) {
  %n = arith.constant 2048 : i32
  // expected-error @+1 {{'tile.named_barrier' op thread count 2048 is not a multiple of 32 from 32 to 1024}}
  tile.named_barrier id(%id) threads(%n)
  return
}
