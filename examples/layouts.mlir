// The layout notation, one attribute per feature. See docs/Rationale.md.
module attributes {
  // Row-major 32x16: bare strides are on the memory axis m.
  tile.row_major = #tile.layout<S[(32,16):(16,1)]>,
  // Column-major view of the same elements.
  tile.col_major = #tile.layout<S[(32,16):(1,32)]>,
  // tcgen05.cp 32x128b.warpx4: rows in lanes, replicated to 4 subpartitions.
  tile.warpx4 = #tile.layout<S[(32,16):(1@TLane,1@TCol)] + R[4:32@TLane]>,
  // A 128-lane accumulator starting at column 256.
  tile.accumulator = #tile.layout<S[(128,256):(1@TLane,1@TCol)] + 256@TCol>,
  // 8x256 f16, 128-byte swizzle: four 64-column atoms of 8 rows each.
  tile.sw128 = #tile.layout<S[(8,4,64):(64,512,1)], swizzle<3,3,3>>,
  // A warp's register fragment: lanes own rows, 2 values per lane.
  tile.fragment = #tile.layout<S[(8,4,2):(4@laneid,1@laneid,1)]>
} {
}
