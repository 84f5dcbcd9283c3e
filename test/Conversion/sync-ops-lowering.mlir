// The synchronization ops round-trip and lower to pinned NVVM, and through
// --tile-to-nvvm to the LLVM dialect (the examples built on them are
// assembled by ptxas in test/Compile).
// RUN: tile-opt %s -split-input-file | tile-opt -split-input-file | FileCheck %s --check-prefix=ROUND
// RUN: tile-opt %s -split-input-file --tile-lower-variants | FileCheck %s
// RUN: tile-opt %s -split-input-file --tile-to-nvvm | FileCheck %s --check-prefix=LLVM

!bars = !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>, num_barriers = 2>

// ROUND-LABEL: gpu.func @tensor_memory
// ROUND: %[[T:.+]] = tile.tmem_alloc 256 columns {cta_group = 2 : i32, relinquish, warp = 1 : i32}
// ROUND: tile.mma_commit mbar(%{{.+}}[%{{.+}}] : !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>, num_barriers = 2>) cta_mask(%{{.+}}) exec warp {cta_group = 2 : i32}
// ROUND: tile.fence before_thread_sync
// ROUND: tile.fence after_thread_sync
// ROUND: tile.tmem_dealloc %[[T]], 256 columns {cta_group = 2 : i32, warp = 1 : i32}

// CHECK: llvm.mlir.global internal @__tile_tmem_slot_0() {addr_space = 3 : i32, alignment = 4 : i64} : i32
// CHECK-LABEL: gpu.func @tensor_memory
// CHECK: %[[SLOT:.+]] = llvm.mlir.addressof @__tile_tmem_slot_0 : !llvm.ptr<3>
// CHECK: %[[WARP:.+]] = arith.divui %{{.+}}, %c32 : index
// CHECK: %[[IS:.+]] = arith.cmpi eq, %[[WARP]], %c1{{.*}} : index
// CHECK: scf.if %[[IS]] {
// CHECK:   %[[COLS:.+]] = arith.constant 256 : i32
// CHECK:   nvvm.tcgen05.alloc %[[SLOT]], %[[COLS]] {group = #nvvm.cta_group<cta_2>} : !llvm.ptr<3>, i32
// CHECK:   nvvm.tcgen05.relinquish_alloc_permit {group = #nvvm.cta_group<cta_2>}
// CHECK: }
// CHECK: nvvm.tcgen05.fence <before>
// CHECK: gpu.barrier
// CHECK: nvvm.tcgen05.fence <after>
// CHECK: %[[ADDR:.+]] = llvm.load %[[SLOT]] : !llvm.ptr<3> -> i32
// CHECK: %[[E:.+]] = nvvm.elect.sync -> i1
// CHECK: scf.if %[[E]] {
// CHECK:   %[[BAR:.+]] = nvgpu.mbarrier.get %{{.+}}[%{{.+}}] : <memorySpace = #gpu.address_space<workgroup>, num_barriers = 2> -> i64
// CHECK:   %[[BARP:.+]] = llvm.inttoptr %[[BAR]] : i64 to !llvm.ptr<3>
// CHECK:   nvvm.tcgen05.commit %[[BARP]], multicast_mask = %{{.+}} {group = #nvvm.cta_group<cta_2>} : !llvm.ptr<3>, i16
// CHECK: }
// CHECK: nvvm.tcgen05.fence <before>
// CHECK: nvvm.tcgen05.fence <after>
// CHECK: nvvm.tcgen05.fence <before>
// CHECK: gpu.barrier
// CHECK: arith.cmpi eq, %{{.+}}, %c1{{.*}} : index
// CHECK: scf.if
// CHECK:   %[[TPTR:.+]] = llvm.inttoptr %[[ADDR]] : i32 to !llvm.ptr<6>
// CHECK:   nvvm.tcgen05.dealloc %[[TPTR]], %{{.+}} {group = #nvvm.cta_group<cta_2>} : !llvm.ptr<6>, i32
// LLVM: llvm.mlir.global private @__mbarrier() {addr_space = 3 : i32, alignment = 8 : i64} : !llvm.array<2 x i64>
// LLVM-LABEL: llvm.func @tensor_memory
// LLVM: llvm.mlir.addressof @__mbarrier
// LLVM: nvvm.tcgen05.commit
gpu.module @kernels [#nvvm.target<chip = "sm_100a">] {
  gpu.func @tensor_memory(%mask: i16) kernel {
    %c1 = arith.constant 1 : index
    %bars = nvgpu.mbarrier.create -> !bars
    %t = tile.tmem_alloc 256 columns {cta_group = 2 : i32, warp = 1 : i32, relinquish}
    tile.mma_commit mbar(%bars[%c1] : !bars) cta_mask(%mask) exec warp {cta_group = 2 : i32}
    tile.fence before_thread_sync
    tile.fence after_thread_sync
    tile.tmem_dealloc %t, 256 columns {cta_group = 2 : i32, warp = 1 : i32}
    gpu.return
  }
}

// -----

!bars = !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>, num_barriers = 4>

// ROUND-LABEL: gpu.func @groups_and_fences
// ROUND: tile.commit_group bulk
// ROUND: tile.wait_group bulk, 1 {read}
// ROUND: tile.commit_group wgmma
// ROUND: tile.wait_group wgmma, 0
// ROUND: tile.fence proxy_async
// ROUND: tile.fence mbarrier_init
// ROUND: tile.mbarrier_arrive_remote %{{.+}}[%{{.+}}] : !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>, num_barriers = 4>, cta %{{.+}} count %{{[[:alnum:]_]+$}}
// ROUND: tile.mbarrier_arrive_remote %{{.+}}, cta %{{[[:alnum:]_]+$}}
// ROUND: tile.mbarrier_arrive_remote %{{.+}}[%{{.+}}] : !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>, num_barriers = 4>, cta %{{.+}} scope cta{{$}}

// CHECK-LABEL: gpu.func @groups_and_fences
// CHECK: nvvm.cp.async.bulk.commit.group
// CHECK: nvvm.cp.async.bulk.wait_group 1 {read}
// CHECK: nvvm.wgmma.commit.group.sync.aligned
// CHECK: nvvm.wgmma.wait.group.sync.aligned 0
// CHECK: nvvm.fence.proxy {kind = #nvvm.proxy_kind<async.shared>, space = #nvvm.shared_space<cta>}
// CHECK: nvvm.fence.mbarrier.init
// CHECK: %[[B:.+]] = nvgpu.mbarrier.get %{{.+}}[%{{.+}}] : <memorySpace = #gpu.address_space<workgroup>, num_barriers = 4> -> i64
// CHECK: %[[P:.+]] = llvm.inttoptr %[[B]] : i64 to !llvm.ptr<3>
// CHECK: %[[R:.+]] = nvvm.mapa %[[P]], %{{.+}} : !llvm.ptr<3> -> !llvm.ptr<7>
// CHECK: nvvm.mbarrier.arrive %[[R]], %{{.+}} {scope = #nvvm.mem_scope<cluster>} : !llvm.ptr<7>
// CHECK: %[[R2:.+]] = nvvm.mapa %{{.+}}, %{{.+}} : !llvm.ptr<3> -> !llvm.ptr<7>
// CHECK: nvvm.mbarrier.arrive %[[R2]] {scope = #nvvm.mem_scope<cluster>} : !llvm.ptr<7>
// `scope cta`: the default (CTA-scope) release of nvvm.mbarrier.arrive.
// CHECK: %[[R3:.+]] = nvvm.mapa %{{.+}}, %{{.+}} : !llvm.ptr<3> -> !llvm.ptr<7>
// CHECK: nvvm.mbarrier.arrive %[[R3]] : !llvm.ptr<7>
gpu.module @kernels [#nvvm.target<chip = "sm_90a">] {
  llvm.mlir.global internal @bar() {addr_space = 3 : i32, alignment = 8 : i64} : i64
  gpu.func @groups_and_fences(%peer: i32, %n: i32) kernel {
    %c3 = arith.constant 3 : index
    %bars = nvgpu.mbarrier.create -> !bars
    %bar = llvm.mlir.addressof @bar : !llvm.ptr<3>
    tile.commit_group bulk
    tile.wait_group bulk, 1 {read}
    tile.commit_group wgmma
    tile.wait_group wgmma, 0
    tile.fence proxy_async
    tile.fence mbarrier_init
    tile.mbarrier_arrive_remote %bars[%c3] : !bars, cta %peer count %n
    tile.mbarrier_arrive_remote %bar, cta %peer
    tile.mbarrier_arrive_remote %bars[%c3] : !bars, cta %peer scope cta
    gpu.return
  }
}

// -----

// Named barriers: bar.sync and bar.arrive with the op's id and count.
// ROUND-LABEL: gpu.func @take_turns
// ROUND: tile.named_barrier id(%{{.+}}) threads(%{{.+}})
// ROUND: tile.named_barrier arrive id(%{{.+}}) threads(%{{.+}})
// CHECK-LABEL: gpu.func @take_turns
// CHECK: nvvm.barrier id = %[[ID:.+]] number_of_threads = %[[N:.+]]
// CHECK: nvvm.barrier.arrive id = %[[OTHER:.+]] number_of_threads = %[[N]]
// LLVM-LABEL: llvm.func @take_turns
// LLVM: nvvm.barrier id = %{{.+}} number_of_threads = %[[LN:.+]]
// LLVM: "bar.arrive $0, $1;", "r,n" %{{.+}}, %[[LN]]
gpu.module @kernels [#nvvm.target<chip = "sm_90a">] {
  gpu.func @take_turns(%id: i32, %other: i32) kernel {
    %both = arith.constant 256 : i32
    tile.named_barrier id(%id) threads(%both)
    tile.named_barrier arrive id(%other) threads(%both)
    gpu.return
  }
}
