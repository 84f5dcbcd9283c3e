// RUN: tile-opt %s -split-input-file -verify-diagnostics

// Malformed #tile.layout text: each error points at the offending token.

// expected-error @+1 {{expected 2 strides to match the 2 extents, got 1}}
func.func private @f() attributes {l = #tile.layout<S[(32,16):(16)]>}

// -----

// expected-error @+1 {{extent must be a positive integer, got 0}}
func.func private @f() attributes {l = #tile.layout<S[(0,16):(16,1)]>}

// -----

// expected-error @+1 {{extent must be a positive integer, got -4}}
func.func private @f() attributes {l = #tile.layout<S[(-4,16):(16,1)]>}

// -----

// expected-error @+1 {{stride must be non-negative, got -1}}
func.func private @f() attributes {l = #tile.layout<S[4:-1]>}

// -----

// expected-error @+1 {{unknown axis 'Lane'; expected one of m, TLane, TCol, laneid, warpid, tid_in_wg, wid_in_wg, tx, cta}}
func.func private @f() attributes {l = #tile.layout<S[4:1@Lane]>}

// -----

// expected-error @+1 {{a layout needs a shard term S[...]}}
func.func private @f() attributes {l = #tile.layout<R[4:32@TLane]>}

// -----

// expected-error @+1 {{a layout has one shard term S[...]}}
func.func private @f() attributes {l = #tile.layout<S[4:1] + S[4:1]>}

// -----

// expected-error @+1 {{swizzle<9,3,3> is out of range: need 1 <= B <= 8, B <= S <= 16, M <= 16}}
func.func private @f() attributes {l = #tile.layout<S[4:1], swizzle<9,3,3>>}

// -----

// expected-error @+1 {{swizzle<3,3,2> is out of range: need 1 <= B <= 8, B <= S <= 16, M <= 16}}
func.func private @f() attributes {l = #tile.layout<S[4:1], swizzle<3,3,2>>}

// -----

// expected-error @+1 {{expected a layout term: S[...], R[...] or an offset k@axis}}
func.func private @f() attributes {l = #tile.layout<S[4:1] + X>}

// -----

// expected-error @+1 {{offset must be non-negative, got -3}}
func.func private @f() attributes {l = #tile.layout<S[4:1] + -3>}

// -----

// The generic dialect-attribute lexer catches unbalanced brackets first.
// expected-error @+1 {{unbalanced '[' character in pretty dialect name}}
func.func private @f() attributes {l = #tile.layout<S[4:1>}

// -----

// expected-error @+1 {{invalid layout: shard iter 0 has extent 4294967297; extents must be <= 2^32}}
func.func private @f() attributes {l = #tile.layout<S[4294967297:1]>}

// -----

// expected-error @+1 {{invalid layout: shard iter 1 (1048576:1073741824) reaches beyond address 2^48}}
func.func private @f() attributes {l = #tile.layout<S[(2,1048576):(1,1073741824)]>}

// -----

// expected-error @+1 {{swizzle<0,3,3> has B = 0; omit the swizzle instead}}
func.func private @f() attributes {l = #tile.layout<S[4:1], swizzle<0,3,3>>}
