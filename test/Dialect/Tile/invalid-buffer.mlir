// RUN: tile-opt %s -split-input-file -verify-diagnostics

// Malformed !tile.buffer types: shape vs layout, scope vs axes, swizzle vs
// dtype, tensor-memory bounds.

// expected-error @+1 {{layout does not fit the shape: layout has 64 elements but shape (8,16) has 128}}
func.func private @f(!tile.buffer<8x16xf16, shared, #tile.layout<S[(8,8):(8,1)]>>)

// -----

// expected-error @+1 {{layout does not fit the shape: shard iter of extent 4 straddles dim 1 of shape (4,6)}}
func.func private @f(!tile.buffer<4x6xf32, shared, #tile.layout<S[(6,4):(4,1)]>>)

// -----

// expected-error @+1 {{layout uses axis 'TLane', which a shared buffer cannot address (allowed: m, cta)}}
func.func private @f(!tile.buffer<32x16xf32, shared, #tile.layout<S[(32,16):(1@TLane,1)]>>)

// -----

// expected-error @+1 {{layout uses axis 'TLane', which a local buffer cannot address (allowed: m, laneid, warpid, tid_in_wg, wid_in_wg, tx)}}
func.func private @f(!tile.buffer<32xf32, local, #tile.layout<S[32:1@TLane]>>)

// -----

// expected-error @+1 {{layout offsets axis 'TCol', which a global buffer cannot address (allowed: m)}}
func.func private @f(!tile.buffer<32xf32, global, #tile.layout<S[32:1] + 8@TCol>>)

// -----

// expected-error @+1 {{a tmem buffer needs a layout placing its elements on TLane/TCol}}
func.func private @f(!tile.buffer<128x32xf32, tmem>)

// -----

// expected-error @+1 {{layout reaches tensor-memory lane 255; tensor memory has 128 lanes}}
func.func private @f(!tile.buffer<256x32xf32, tmem, #tile.layout<S[(256,32):(1@TLane,1@TCol)]>>)

// -----

// expected-error @+1 {{layout needs 1024 32-bit tensor-memory columns; there are 512}}
func.func private @f(!tile.buffer<128x1024xf32, tmem, #tile.layout<S[(128,1024):(1@TLane,1@TCol)]>>)

// -----

// expected-error @+1 {{swizzle<3,3,3> is not an NVMMA swizzle for 32-bit elements; expected swizzle<1,2,3> (32B), swizzle<2,2,3> (64B) or swizzle<3,2,3> (128B)}}
func.func private @f(!tile.buffer<8x64xf32, shared, #tile.layout<S[(8,64):(64,1)], swizzle<3,3,3>>>)

// -----

// expected-error @+1 {{a swizzled layout is only valid in shared memory, not global}}
func.func private @f(!tile.buffer<8x64xf16, global, #tile.layout<S[(8,64):(64,1)], swizzle<3,3,3>>>)

// -----

// expected-error @+1 {{dim 0 is dynamic; only global buffers may have dynamic dims}}
func.func private @f(!tile.buffer<?x64xf16, shared>)

// -----

// expected-error @+1 {{a buffer with dynamic dims cannot have a static layout; the host encodes its strides}}
func.func private @f(!tile.buffer<?x64xf16, global, #tile.layout<S[64:1]>>)

// -----

// expected-error @+1 {{dim 0 has extent 0; extents must be positive}}
func.func private @f(!tile.buffer<0x4xf32, shared>)

// -----

// expected-error @+1 {{unknown memory scope 'texture'; expected global, shared, tmem or local}}
func.func private @f(!tile.buffer<4xf32, texture>)

// -----

// expected-error @+1 {{element type must be an integer or float type, got 'index'}}
func.func private @f(!tile.buffer<4xindex, shared>)

// -----

func.func @shared_address_is_ptr3(%s: !tile.buffer<64xf16, shared>) {
  // expected-error @+1 {{a shared buffer's address is !llvm.ptr<3>, got '!llvm.ptr<1>'}}
  %p = tile.base_address %s : !tile.buffer<64xf16, shared> -> !llvm.ptr<1>
  return
}

// -----

func.func @global_address_is_ptr1(%g: !tile.buffer<64xf16, global>) {
  // expected-error @+1 {{a global buffer's address is !llvm.ptr<1>, got 'i32'}}
  %p = tile.base_address %g : !tile.buffer<64xf16, global> -> i32
  return
}

// -----

func.func @tmem_address_is_i32(%t: !tile.buffer<128x32xf32, tmem, #tile.layout<S[(128,32):(1@TLane,1@TCol)]>>) {
  // expected-error @+1 {{a tmem buffer's address is i32, got '!llvm.ptr<3>'}}
  %p = tile.base_address %t : !tile.buffer<128x32xf32, tmem, #tile.layout<S[(128,32):(1@TLane,1@TCol)]>> -> !llvm.ptr<3>
  return
}

// -----

func.func @half_byte_offset(%m: memref<64xf4E2M1FN, strided<[1], offset: 3>, 1>) {
  // expected-error @+1 {{memref offset 3 does not start on a byte boundary}}
  %g = tile.from_memref %m : memref<64xf4E2M1FN, strided<[1], offset: 3>, 1> -> !tile.buffer<64xf4E2M1FN, global>
  return
}
