// A kernel calling a device function (llvm-pipeline.mlir).
gpu.module @with_a_helper [#nvvm.target<chip = "sm_90a">] {
  func.func @times_eight(%x: i32) -> i32 {
    %c3 = arith.constant 3 : i32
    %y = arith.shli %x, %c3 : i32
    return %y : i32
  }
  gpu.func @calls_a_helper(%out: memref<1xi32, 1>) kernel {
    %c0 = arith.constant 0 : index
    %tid = gpu.thread_id x
    %t = arith.index_cast %tid : index to i32
    %v = func.call @times_eight(%t) : (i32) -> i32
    memref.store %v, %out[%c0] : memref<1xi32, 1>
    gpu.return
  }
}
