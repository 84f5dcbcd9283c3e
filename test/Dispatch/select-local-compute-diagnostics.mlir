// Every refusal of a register-tile op names the thread, the element and the
// rule.
// RUN: tile-opt %s --tile-select-variants -split-input-file -verify-diagnostics

// A column sum spans the warps: it needs the scratch, which needs a known
// block of whole warpgroups.
!acc = !tile.buffer<64x16xf32, local, #tile.layout<S[(4,2,8,2,4,2):(32@tid_in_wg,2,4@tid_in_wg,4,1@tid_in_wg,1)]>>
!cols = !tile.buffer<1x16xf32, local, #tile.layout<S[(1,2,4,2):(0,2,1@tid_in_wg,1)] + R[32:4@tid_in_wg]>>
gpu.module @m [#nvvm.target<chip = "sm_90a">] {
  gpu.func @k() kernel attributes {known_block_size = array<i32: 96, 1, 1>} {
    %s = tile.alloc_local : !acc
    %c = tile.alloc_local : !cols
    // expected-error @+4 {{no variant of tile.reduce can implement this op on sm_90a}}
    // expected-note @+3 {{in_thread (priority 30): declined — }}
    // expected-note @+2 {{warp_shuffle (priority 20): declined — output element (0,0) (register 0) in thread 0: its row is spread over the warps of the warpgroup (threads 0, 4, 8, 12, ...); combining warps needs shared memory}}
    // expected-note @+1 {{shared_memory (priority 10): rejected: warpgroup_block — needs a kernel (gpu.func ... kernel) whose known_block_size is whole warpgroups along x (y = z = 1): each warpgroup gets its own scratch and barrier}}
    tile.reduce <add> %s dims [0] into %c : !acc into !cols
    gpu.return
  }
}

// -----

// Nine warpgroups would need more named barriers than the scratch has.
!acc = !tile.buffer<64x16xf32, local, #tile.layout<S[(4,2,8,2,4,2):(32@tid_in_wg,2,4@tid_in_wg,4,1@tid_in_wg,1)]>>
!cols = !tile.buffer<1x16xf32, local, #tile.layout<S[(1,2,4,2):(0,2,1@tid_in_wg,1)] + R[32:4@tid_in_wg]>>
gpu.module @m [#nvvm.target<chip = "sm_90a">] {
  gpu.func @k() kernel attributes {known_block_size = array<i32: 1152, 1, 1>} {
    %s = tile.alloc_local : !acc
    %c = tile.alloc_local : !cols
    // expected-error @+4 {{no variant of tile.reduce can implement this op on sm_90a}}
    // expected-note @+3 {{in_thread (priority 30): declined — }}
    // expected-note @+2 {{warp_shuffle (priority 20): declined — }}
    // expected-note @+1 {{shared_memory (priority 10): rejected: warpgroup_block — 9 warpgroups; named barriers 8-15 serve 8 at most}}
    tile.reduce <add> %s dims [0] into %c : !acc into !cols
    gpu.return
  }
}

// -----

// f16 elements cannot be shuffled as they are.
!acc = !tile.buffer<64x16xf16, local, #tile.layout<S[(4,2,8,2,4,2):(32@tid_in_wg,2,4@tid_in_wg,4,1@tid_in_wg,1)]>>
!rows = !tile.buffer<64x1xf16, local, #tile.layout<S[(4,2,8,1):(32@tid_in_wg,1,4@tid_in_wg,1)] + R[4:1@tid_in_wg]>>
gpu.module @m [#nvvm.target<chip = "sm_90a">] {
  gpu.func @k() kernel {
    %s = tile.alloc_local : !acc
    %m = tile.alloc_local : !rows
    // expected-error @+4 {{no variant of tile.reduce can implement this op on sm_90a}}
    // expected-note @+3 {{in_thread (priority 30): declined — }}
    // expected-note @+2 {{warp_shuffle (priority 20): rejected: element_32_bit — shfl.sync moves 32-bit words; the elements are f16 (reduce f32 or i32 across lanes)}}
    // expected-note @+1 {{shared_memory (priority 10): rejected: element_32_bit}}
    tile.reduce <max> %s dims [1] into %m : !acc into !rows
    gpu.return
  }
}

// -----

// A row vector that is not replicated on the quad: thread 1 needs row 0.
!acc = !tile.buffer<64x16xf32, local, #tile.layout<S[(4,2,8,2,4,2):(32@tid_in_wg,2,4@tid_in_wg,4,1@tid_in_wg,1)]>>
!rows = !tile.buffer<64x1xf32, local, #tile.layout<S[(4,2,8,1):(32@tid_in_wg,1,4@tid_in_wg,1)] + R[4:1@tid_in_wg]>>
!wrong = !tile.buffer<64x1xf32, local, #tile.layout<S[(4,2,8,1):(32@tid_in_wg,1,1@tid_in_wg,1)] + R[4:8@tid_in_wg]>>
gpu.module @m [#nvvm.target<chip = "sm_90a">] {
  gpu.func @k() kernel {
    %s = tile.alloc_local : !acc
    %w = tile.alloc_local : !wrong
    // expected-error @+2 {{no variant of tile.map can implement this op on sm_90a}}
    // expected-note @+1 {{registers (priority 10): declined — thread 1 computes output element (0,2) but does not hold element (0,0) of input 1 (held by threads 0, 8, 16, 24): a map reads only its own registers; give the input a layout (with replicas) that puts it where the output is}}
    tile.map ins(%s, %w : !acc, !wrong) outs(%s : !acc) {
    ^bb0(%x: f32, %y: f32, %i: index, %j: index):
      %d = arith.subf %x, %y : f32
      tile.yield %d : f32
    }
    gpu.return
  }
}

// -----

// The same rule for a `where` guard: thread 1 does not hold row 0's guard.
!acc = !tile.buffer<64x16xf32, local, #tile.layout<S[(4,2,8,2,4,2):(32@tid_in_wg,2,4@tid_in_wg,4,1@tid_in_wg,1)]>>
!wrong = !tile.buffer<64x1xi1, local, #tile.layout<S[(4,2,8,1):(32@tid_in_wg,1,1@tid_in_wg,1)] + R[4:8@tid_in_wg]>>
gpu.module @m [#nvvm.target<chip = "sm_90a">] {
  gpu.func @k() kernel {
    %s = tile.alloc_local : !acc
    %w = tile.alloc_local : !wrong
    // expected-error @+2 {{no variant of tile.map can implement this op on sm_90a}}
    // expected-note @+1 {{registers (priority 10): declined — thread 1 computes output element (0,2) but does not hold element (0,0) of the `where` guard (held by threads 0, 8, 16, 24): a map reads only its own registers; give the input a layout (with replicas) that puts it where the output is}}
    tile.map ins(%s : !acc) outs(%s : !acc) where(%w : !wrong) {
    ^bb0(%x: f32, %i: index, %j: index):
      %d = arith.addf %x, %x : f32
      tile.yield %d : f32
    }
    gpu.return
  }
}

// -----

// A conversion whose source register would depend on the thread (rows
// moved between registers and lanes at once) has no variant.
!acc = !tile.buffer<64x16xf32, local, #tile.layout<S[(4,2,8,2,4,2):(32@tid_in_wg,2,4@tid_in_wg,4,1@tid_in_wg,1)]>>
!rowt = !tile.buffer<64x16xf32, local, #tile.layout<S[(64,16):(1@tid_in_wg,1)] + R[2:64@tid_in_wg]>>
gpu.module @m [#nvvm.target<chip = "sm_90a">] {
  gpu.func @k() kernel {
    %s = tile.alloc_local : !acc
    %t = tile.alloc_local : !rowt
    // expected-error @+4 {{no variant of tile.convert can implement this op on sm_90a}}
    // expected-note @+3 {{registers (priority 30): declined — thread 1 holds element (1,0) of the result but not of the source (held by threads 4): the data must cross threads}}
    // expected-note @+2 {{warp_shuffle (priority 20): declined — element (8,0) of the result (thread 8, register 0) is not in source register 0 of a lane an xor of the thread's lane bits names: the register a lane sends would depend on the thread}}
    // expected-note @+1 {{shared_memory (priority 10): rejected: warpgroup_block — needs a kernel (gpu.func ... kernel) whose known_block_size}}
    tile.convert %s to %t : !acc to !rowt
    gpu.return
  }
}

// -----

// fp8 results need the packed cvt of sm_89+.
!acc = !tile.buffer<32x4xf32, local, #tile.layout<S[(32,4):(1@laneid,1)]>>
!q = !tile.buffer<32x4xf8E4M3FN, local, #tile.layout<S[(32,4):(1@laneid,1)]>>
gpu.module @m [#nvvm.target<chip = "sm_80">] {
  gpu.func @k() kernel {
    %s = tile.alloc_local : !acc
    %q = tile.alloc_local : !q
    // expected-error @+4 {{no variant of tile.convert can implement this op on sm_80}}
    // expected-note @+3 {{registers (priority 30): rejected: supported_conversion — cvt to f8E4M3FN needs sm_89+, not sm_80}}
    // expected-note @+2 {{warp_shuffle (priority 20): rejected: supported_conversion — cvt to f8E4M3FN needs sm_89+, not sm_80}}
    // expected-note @+1 {{shared_memory (priority 10): rejected: supported_conversion — cvt to f8E4M3FN needs sm_89+, not sm_80}}
    tile.convert %s to %q : !acc to !q
    gpu.return
  }
}

// -----

// A device function has no dynamic segment to hold the scratch.
!acc = !tile.buffer<64x16xf32, local, #tile.layout<S[(4,2,8,2,4,2):(32@tid_in_wg,2,4@tid_in_wg,4,1@tid_in_wg,1)]>>
!cols = !tile.buffer<1x16xf32, local, #tile.layout<S[(1,2,4,2):(0,2,1@tid_in_wg,1)] + R[32:4@tid_in_wg]>>
gpu.module @m [#nvvm.target<chip = "sm_90a">] {
  gpu.func @helper() attributes {known_block_size = array<i32: 128, 1, 1>} {
    %s = tile.alloc_local : !acc
    %c = tile.alloc_local : !cols
    // expected-error @+4 {{no variant of tile.reduce can implement this op on sm_90a}}
    // expected-note @+3 {{in_thread (priority 30): declined — }}
    // expected-note @+2 {{warp_shuffle (priority 20): declined — }}
    // expected-note @+1 {{shared_memory (priority 10): rejected: warpgroup_block — needs a kernel (gpu.func ... kernel)}}
    tile.reduce <add> %s dims [0] into %c : !acc into !cols
    gpu.return
  }
}
