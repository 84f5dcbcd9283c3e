// tile-opt registers what the tile -> PTX pipeline needs: the NVVM target's
// serializer and the LLVM-IR translations (without them gpu-module-to-binary
// crashes or fails).
// RUN: tile-opt %s --convert-nvvm-to-llvm --gpu-module-to-binary="format=isa" | FileCheck %s --check-prefix=ISA
// RUN: %if ptxas %{ tile-opt %s --convert-nvvm-to-llvm --gpu-module-to-binary="format=bin toolkit=%cuda_toolkit" | FileCheck %s --check-prefix=BIN %}

// ISA-LABEL: gpu.binary @kernels
// ISA-SAME: #nvvm.target<chip = "sm_100a", features = "+ptx88">
// ISA-SAME: .target sm_100a
// ISA-SAME: .entry store_one
// BIN-LABEL: gpu.binary @kernels
// BIN-SAME: "\7FELF
gpu.module @kernels [#nvvm.target<chip = "sm_100a", features = "+ptx88">] {
  llvm.func @store_one(%p: !llvm.ptr<1>) attributes {nvvm.kernel} {
    %tid = nvvm.read.ptx.sreg.tid.x : i32
    %one = llvm.mlir.constant(1.0 : f32) : f32
    %addr = llvm.getelementptr %p[%tid] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, f32
    llvm.store %one, %addr : f32, !llvm.ptr<1>
    llvm.return
  }
}
