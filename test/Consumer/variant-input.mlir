// Stage 1 of a 4-stage shared ring: rows 8..15 of a row-major tile.
func.func @stage_copy(%src: !tile.buffer<256x64xf16, shared>,
                      %ring: !tile.buffer<4x8x64xf16, shared>) {
  tile.copy_async %src[8, 0] to %ring[1, 0, 0] sizes [8, 64] exec thread
      : !tile.buffer<256x64xf16, shared> to !tile.buffer<4x8x64xf16, shared>
  return
}
