func.func @f(%taddr: i32) {
  %s = tile.alloc_shared {alignment = 1024 : i64}
      : !tile.buffer<8x256xf16, shared, #tile.layout<S[(8,4,64):(64,512,1)], swizzle<3,3,3>>>
  %t = tile.tmem_buffer %taddr
      : !tile.buffer<32x16xui8, tmem, #tile.layout<S[(32,16):(1@TLane,1@TCol)] + R[4:32@TLane]>>
  return
}
