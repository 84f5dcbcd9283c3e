// The buffer types and layouts the example kernels use, in an sm_100a
// module: a global tensor with runtime sizes, a 128-byte swizzled 8x256 f16
// shared tile, a 32x16 uint8 shared tile and its warpx4-broadcast
// tensor-memory copy, and a 128-lane f32 accumulator at tmem columns 256..383.
//
// `scripts/demo` round-trips this file through tile-opt.
gpu.module @buffers [#nvvm.target<chip = "sm_100a", features = "+ptx88">] {
  gpu.func @buffers(%a: memref<?x?xf16, 1>, %taddr: i32) kernel {
    %global = tile.from_memref %a
        : memref<?x?xf16, 1> -> !tile.buffer<?x?xf16, global>
    %sw128 = tile.alloc_shared {alignment = 1024 : i64}
        : !tile.buffer<8x256xf16, shared, #tile.layout<S[(8,4,64):(64,512,1)], swizzle<3,3,3>>>
    %u8 = tile.alloc_shared
        : !tile.buffer<32x16xui8, shared, #tile.layout<S[(32,16):(16,1)]>>
    %warpx4 = tile.tmem_buffer %taddr
        : !tile.buffer<32x16xui8, tmem, #tile.layout<S[(32,16):(1@TLane,1@TCol)] + R[4:32@TLane]>>
    %acc = tile.tmem_buffer %taddr
        : !tile.buffer<128x128xf32, tmem, #tile.layout<S[(128,128):(1@TLane,1@TCol)] + 256@TCol>>
    gpu.return
  }
}
