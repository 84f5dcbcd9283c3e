// The kernel attributes the manifest reads: `tile.version_of` names another
// kernel, `tile.arg_alignment` records what a variant needs of an argument,
// `tile.sample_grid` the grid size the kernel checks' simulation runs in,
// `tile.sample_contents` the elements it reads from an argument,
// `tile.base_alignment` what an argument's base address is a multiple of.
// RUN: tile-opt --split-input-file --verify-diagnostics %s

gpu.module @m {
  // expected-error @+1 {{'tile.version_of' must name the kernel this one is a version of (a non-empty string)}}
  gpu.func @k() kernel attributes {tile.version_of = ""} {
    gpu.return
  }
}

// -----

gpu.module @m {
  // expected-error @+1 {{'tile.version_of' must name the kernel this one is a version of (a non-empty string)}}
  gpu.func @k() kernel attributes {tile.version_of = 3 : i64} {
    gpu.return
  }
}

// -----

gpu.module @m {
  // expected-error @+1 {{'tile.version_of' names the kernel itself}}
  gpu.func @k() kernel attributes {tile.version_of = "k"} {
    gpu.return
  }
}

// -----

gpu.module @m {
  // expected-error @+1 {{'tile.arg_alignment' must be an array of {arg, bytes (a power of two), by, strides (dims)}}}
  gpu.func @k(%a: memref<?xf16, 1>) kernel
      attributes {tile.arg_alignment = [{arg = 0 : i64, bytes = 12 : i64, by = "ldgsts", strides = array<i64: 0>}]} {
    gpu.return
  }
}

// -----

gpu.module @m {
  // expected-error @+1 {{'tile.arg_alignment' must be an array of {arg, bytes (a power of two), by, strides (dims)}}}
  gpu.func @k(%a: memref<?xf16, 1>) kernel
      attributes {tile.arg_alignment = [{arg = 0 : i64, bytes = 16 : i64}]} {
    gpu.return
  }
}

// -----

gpu.module @m {
  // expected-error @+1 {{'tile.sample_grid' must be three grid sizes, x in [1, 2^31 - 1] and y, z in [1, 65535]: array<i64: x, y, z>}}
  gpu.func @k() kernel attributes {tile.sample_grid = array<i64: 0, 1, 1>} {
    gpu.return
  }
}

// -----

gpu.module @m {
  // expected-error @+1 {{'tile.sample_grid' must be three grid sizes, x in [1, 2^31 - 1] and y, z in [1, 65535]: array<i64: x, y, z>}}
  gpu.func @k() kernel attributes {tile.sample_grid = array<i64: 64>} {
    gpu.return
  }
}

// -----

gpu.module @m {
  // expected-error @+1 {{'tile.sample_grid' must be a whole number of clusters (known_cluster_size 2x1x1)}}
  gpu.func @k() kernel attributes {known_cluster_size = array<i32: 2, 1, 1>,
                                   tile.sample_grid = array<i64: 3, 1, 1>} {
    gpu.return
  }
}

// -----

gpu.module @m {
  // expected-error @+1 {{'tile.sample_grid' must be three grid sizes, x in [1, 2^31 - 1] and y, z in [1, 65535]: array<i64: x, y, z>}}
  gpu.func @k() kernel attributes {tile.sample_grid = array<i64: 1, 65536, 1>} {
    gpu.return
  }
}

// -----

// A malformed known_cluster_size is reported by gpu.func, not read past.
gpu.module @m {
  // expected-error @+1 {{known_cluster_size}}
  gpu.func @k() kernel attributes {known_cluster_size = array<i32: 2>,
                                   tile.sample_grid = array<i64: 3, 1, 1>} {
    gpu.return
  }
}

// -----

// expected-error @+1 {{'tile.sample_grid' belongs on a kernel function}}
gpu.module @m attributes {tile.sample_grid = array<i64: 3, 1, 1>} {
}

// -----

gpu.module @m {
  // expected-error @+1 {{'tile.sample_contents' on argument 0 must be a non-empty array<i64> on a 1-D memref of integers}}
  gpu.func @k(%offsets: memref<?xf32, 1> {tile.sample_contents = array<i64: 0, 3>}) kernel {
    gpu.return
  }
}

// -----

gpu.module @m {
  // expected-error @+1 {{'tile.sample_contents' on argument 0 must be a non-empty array<i64> on a 1-D memref of integers}}
  gpu.func @k(%offsets: memref<?x2xi32, 1> {tile.sample_contents = array<i64: 0, 3>}) kernel {
    gpu.return
  }
}

// -----

gpu.module @m {
  // expected-error @+1 {{'tile.sample_contents' on argument 0 must be a non-empty array<i64> on a 1-D memref of integers}}
  gpu.func @k(%offsets: memref<?xi32, 1> {tile.sample_contents = array<i64>}) kernel {
    gpu.return
  }
}

// -----

gpu.module @m {
  // expected-error @+1 {{'tile.sample_contents' on argument 1 has 2 elements; the memref has 3}}
  gpu.func @k(%x: i32, %offsets: memref<3xi32, 1> {tile.sample_contents = array<i64: 0, 3>}) kernel {
    gpu.return
  }
}

// -----

gpu.module @m {
  // expected-error @+1 {{'tile.sample_sizes' must be one to four sample sizes in [1, 65536]: array<i64: ...>}}
  gpu.func @k() kernel attributes {tile.sample_sizes = array<i64: 0, 200>} {
    gpu.return
  }
}

// -----

gpu.module @m {
  // expected-error @+1 {{'tile.sample_sizes' must be one to four sample sizes in [1, 65536]: array<i64: ...>}}
  gpu.func @k() kernel attributes {tile.sample_sizes = array<i64>} {
    gpu.return
  }
}

// -----

gpu.module @m {
  // expected-error @+1 {{'tile.sample_sizes' must be one to four sample sizes in [1, 65536]: array<i64: ...>}}
  gpu.func @k() kernel attributes {tile.sample_sizes = [160, 200]} {
    gpu.return
  }
}

// -----

gpu.module @m {
  // expected-error @+1 {{'tile.base_alignment' on argument 0 must be an i64 power of two from 1 to 256 on a global memref}}
  gpu.func @k(%w: memref<?x128xf32, 1> {tile.base_alignment = 12 : i64}) kernel {
    gpu.return
  }
}

// -----

gpu.module @m {
  // expected-error @+1 {{'tile.base_alignment' on argument 0 must be an i64 power of two from 1 to 256 on a global memref}}
  gpu.func @k(%w: memref<?x128xf32, 3> {tile.base_alignment = 16 : i64}) kernel {
    gpu.return
  }
}

// -----

gpu.module @m {
  // expected-error @+1 {{'tile.base_alignment' on argument 0 must be an i64 power of two from 1 to 256 on a global memref}}
  gpu.func @k(%n: i32 {tile.base_alignment = 16 : i64}) kernel {
    gpu.return
  }
}

// -----

gpu.module @m {
  // expected-error @+1 {{'tile.base_alignment' on argument 0 is a promise the launch checks: only a gpu.func kernel's argument may carry it}}
  gpu.func @helper(%w: memref<?x128xf32, 1> {tile.base_alignment = 16 : i64}) {
    gpu.return
  }
}
