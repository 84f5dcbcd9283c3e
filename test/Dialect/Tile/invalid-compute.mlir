// Verifier diagnostics of tile.map, tile.reduce and tile.convert.
// RUN: tile-opt %s -split-input-file -verify-diagnostics

!t = !tile.buffer<32x4xf32, local, #tile.layout<S[(32,4):(1@laneid,1)]>>
!v = !tile.buffer<32x2xf32, local, #tile.layout<S[(32,2):(1@laneid,1)]>>
func.func @not_broadcastable() {
  %a = tile.alloc_local : !t
  %b = tile.alloc_local : !v
  // expected-error @+1 {{input 1 of shape 32x2 does not broadcast to the output's 32x4: dim 1 is 2, neither 4 nor 1}}
  tile.map ins(%a, %b : !t, !v) outs(%a : !t) {
  ^bb0(%x: f32, %y: f32, %i: index, %j: index):
    tile.yield %x : f32
  }
  return
}

// -----

!t = !tile.buffer<32x4xf32, local, #tile.layout<S[(32,4):(1@laneid,1)]>>
func.func @region_arity() {
  %a = tile.alloc_local : !t
  // expected-error @+1 {{region takes 2 arguments; it takes one element per input (1) and one index per dim (2)}}
  tile.map ins(%a : !t) outs(%a : !t) {
  ^bb0(%x: f32, %i: index):
    tile.yield %x : f32
  }
  return
}

// -----

!t = !tile.buffer<32x4xf32, local, #tile.layout<S[(32,4):(1@laneid,1)]>>
func.func @region_types() {
  %a = tile.alloc_local : !t
  // expected-error @+1 {{region argument 0 is 'f16', input 0's element type is 'f32'}}
  tile.map ins(%a : !t) outs(%a : !t) {
  ^bb0(%x: f16, %i: index, %j: index):
    %y = arith.extf %x : f16 to f32
    tile.yield %y : f32
  }
  return
}

// -----

!t = !tile.buffer<32x4xf32, local, #tile.layout<S[(32,4):(1@laneid,1)]>>
func.func @yield_type() {
  %a = tile.alloc_local : !t
  tile.map ins(%a : !t) outs(%a : !t) {
  ^bb0(%x: f32, %i: index, %j: index):
    %h = arith.truncf %x : f32 to f16
    // expected-error @+1 {{yields 'f16'; the output's elements are 'f32'}}
    tile.yield %h : f16
  }
  return
}

// -----

!t = !tile.buffer<32x4xf32, local, #tile.layout<S[(32,4):(1@laneid,1)]>>
func.func @memory_in_region(%p: !llvm.ptr) {
  %a = tile.alloc_local : !t
  tile.map ins(%a : !t) outs(%a : !t) {
  ^bb0(%x: f32, %i: index, %j: index):
    // expected-error @+1 {{inside tile.map has memory effects}}
    %y = llvm.load %p : !llvm.ptr -> f32
    tile.yield %y : f32
  }
  return
}

// -----

!t = !tile.buffer<32x4xf8E4M3FN, local, #tile.layout<S[(32,4):(1@laneid,1)]>>
func.func @fp8_map() {
  %a = tile.alloc_local : !t
  // expected-error @+1 {{computes 'f8E4M3FN' elements; floats of 8 bits or fewer have no arithmetic}}
  tile.map ins(%a : !t) outs(%a : !t) {
  ^bb0(%x: f8E4M3FN, %i: index, %j: index):
    tile.yield %x : f8E4M3FN
  }
  return
}

// -----

!t = !tile.buffer<32x4xf32, local, #tile.layout<S[(32,4):(1@laneid,1)]>>
!r = !tile.buffer<32x1xf32, local, #tile.layout<S[(32,1):(1@laneid,0)]>>
func.func @float_xor() {
  %a = tile.alloc_local : !t
  %b = tile.alloc_local : !r
  // expected-error @+1 {{'xor' reduces integers, not 'f32'}}
  tile.reduce <xor> %a dims [1] into %b : !t into !r
  return
}

// -----

!t = !tile.buffer<32x4xf32, local, #tile.layout<S[(32,4):(1@laneid,1)]>>
!r = !tile.buffer<32x2xf32, local, #tile.layout<S[(32,2):(1@laneid,1)]>>
func.func @reduce_shape() {
  %a = tile.alloc_local : !t
  %b = tile.alloc_local : !r
  // expected-error @+1 {{output shape 32x2 should be 32x4 with the reduced dims of extent 1: dim 1 is 2, expected 1}}
  tile.reduce <add> %a dims [1] into %b : !t into !r
  return
}

// -----

!t = !tile.buffer<32x4xf32, local, #tile.layout<S[(32,4):(1@laneid,1)]>>
!r = !tile.buffer<32x1xf32, local, #tile.layout<S[(32,1):(1@laneid,0)]>>
func.func @reduce_dims() {
  %a = tile.alloc_local : !t
  %b = tile.alloc_local : !r
  // expected-error @+1 {{dim 2 is not a dim of the rank-2 input}}
  tile.reduce <add> %a dims [2] into %b : !t into !r
  return
}

// -----

!t = !tile.buffer<32x4xf32, local, #tile.layout<S[(32,4):(1@laneid,1)]>>
!r = !tile.buffer<32x1xf32, local, #tile.layout<S[(32,1):(1@laneid,0)]>>
func.func @reduce_inc() {
  %a = tile.alloc_local : !t
  %b = tile.alloc_local : !r
  // expected-error @+1 {{reduces with add, max, min, and, or or xor, not 'inc'}}
  tile.reduce <inc> %a dims [1] into %b : !t into !r
  return
}

// -----

!t = !tile.buffer<32x4xf32, local, #tile.layout<S[(32,4):(1@laneid,1)]>>
!u = !tile.buffer<32x4xi32, local, #tile.layout<S[(32,4):(1@laneid,1)]>>
func.func @convert_int() {
  %a = tile.alloc_local : !t
  %b = tile.alloc_local : !u
  // expected-error @+1 {{converts 'f32' into 'i32'; only floats convert (to another float type)}}
  tile.convert %a to %b : !t to !u
  return
}

// -----

!t = !tile.buffer<32x4xf32, local, #tile.layout<S[(32,4):(1@laneid,1)]>>
!u = !tile.buffer<32x2xf32, local, #tile.layout<S[(32,2):(1@laneid,1)]>>
func.func @convert_shape() {
  %a = tile.alloc_local : !t
  %b = tile.alloc_local : !u
  // expected-error @+1 {{converts a 32x4 tile into a 32x2 one; shapes must match}}
  tile.convert %a to %b : !t to !u
  return
}

// -----

// Replicas along registers are not a register tile.
// expected-error @+1 {{replicates along registers (m)}}
func.func @replica_on_registers(%a: !tile.buffer<32x1xf32, local, #tile.layout<S[(32,1):(1@laneid,0)] + R[2:1]>>) {
  return
}

// -----

// Registers hold signless integers.
// expected-error @+1 {{a register tile of 'ui32'; registers hold signless integers (use i32)}}
func.func @unsigned_tile(%a: !tile.buffer<32x4xui32, local, #tile.layout<S[(32,4):(1@laneid,1)]>>) {
  return
}

// -----

!t = !tile.buffer<32x4xtf32, local, #tile.layout<S[(32,4):(1@laneid,1)]>>
func.func @tf32_map() {
  %a = tile.alloc_local : !t
  // expected-error @+1 {{output: tf32 is an MMA operand format with no arithmetic; compute in f32}}
  tile.map ins(%a : !t) outs(%a : !t) {
  ^bb0(%x: tf32, %i: index, %j: index):
    tile.yield %x : tf32
  }
  return
}

// -----

// Sub-byte elements are packed in memory: a register's store moves bytes.
!t = !tile.buffer<32x8xf4E2M1FN, local, #tile.layout<S[(32,8):(1@laneid,1)]>>
func.func @fp4_store(%g: !tile.buffer<32x8xf4E2M1FN, global>) {
  %a = tile.alloc_local : !t
  // expected-error @+1 {{elements of 4 bits are packed in memory; a register tile's loads and stores move whole bytes}}
  tile.store %a to %g[0, 0] : !t to !tile.buffer<32x8xf4E2M1FN, global>
  return
}

// -----

!t = !tile.buffer<32x4xf32, local, #tile.layout<S[(32,4):(1@laneid,1)]>>
!g = !tile.buffer<32x1xf32, local, #tile.layout<S[(32,1):(1@laneid,1)]>>
func.func @guard_not_i1() {
  %a = tile.alloc_local : !t
  %g = tile.alloc_local : !g
  // expected-error @+1 {{the `where` guard has 'f32' elements; it is a tile of i1}}
  tile.map ins(%a : !t) outs(%a : !t) where(%g : !g) {
  ^bb0(%x: f32, %i: index, %j: index):
    tile.yield %x : f32
  }
  return
}

// -----

!t = !tile.buffer<32x4xf32, local, #tile.layout<S[(32,4):(1@laneid,1)]>>
!g = !tile.buffer<32x2xi1, local, #tile.layout<S[(32,2):(1@laneid,1)]>>
func.func @guard_not_broadcastable() {
  %a = tile.alloc_local : !t
  %g = tile.alloc_local : !g
  // expected-error @+1 {{the `where` guard of shape 32x2 does not broadcast to the output's 32x4: dim 1 is 2, neither 4 nor 1}}
  tile.map ins(%a : !t) outs(%a : !t) where(%g : !g) {
  ^bb0(%x: f32, %i: index, %j: index):
    tile.yield %x : f32
  }
  return
}

// -----

!t = !tile.buffer<32x4xf32, local, #tile.layout<S[(32,4):(1@laneid,1)]>>
!g = !tile.buffer<32xi1, local, #tile.layout<S[32:1@laneid]>>
func.func @guard_rank() {
  %a = tile.alloc_local : !t
  %g = tile.alloc_local : !g
  // expected-error @+1 {{the `where` guard has rank 1, the output 2; broadcast dims keep their place with extent 1}}
  tile.map ins(%a : !t) outs(%a : !t) where(%g : !g) {
  ^bb0(%x: f32, %i: index, %j: index):
    tile.yield %x : f32
  }
  return
}

// -----

!b = !tile.buffer<32x4xi1, local, #tile.layout<S[(32,4):(1@laneid,1)]>>
func.func @guard_is_output() {
  %a = tile.alloc_local : !b
  // expected-error @+1 {{the `where` guard is the output itself; an element's guard would change with it}}
  tile.map ins(%a : !b) outs(%a : !b) where(%a : !b) {
  ^bb0(%x: i1, %i: index, %j: index):
    tile.yield %x : i1
  }
  return
}
