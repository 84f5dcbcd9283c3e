// Every `Example:` in the dialect's ODS descriptions parses and verifies.
// RUN: %python %S/check_td_examples.py tile-opt %tile_src_root/include/tile/Dialect/Tile/IR | FileCheck %s
// CHECK-DAG: TileAttrs.td example 0: ok
// CHECK-DAG: TileKernelABIAttrs.td example 0: ok
// CHECK-DAG: TileKernelABIAttrs.td example 1: ok
// CHECK-DAG: TileTypes.td example 0: ok
// CHECK-DAG: TileOps.td example 0: ok
// CHECK-DAG: TileOps.td example 1: ok
// CHECK-DAG: TileOps.td example 2: ok
// CHECK-DAG: TileOps.td example 3: ok
// CHECK-DAG: TileOps.td example 4: ok
// CHECK-DAG: TileOps.td example 5: ok
// CHECK-DAG: TileOps.td example 6: ok
// CHECK-DAG: TileLocalOps.td example 0: ok
// CHECK-DAG: TileLocalOps.td example 1: ok
// CHECK-DAG: TileLocalOps.td example 2: ok
// CHECK-DAG: TileLocalOps.td example 3: ok
// CHECK-DAG: TileLocalOps.td example 4: ok
// CHECK-DAG: TileLocalOps.td example 5: ok
// CHECK-DAG: TileLocalOps.td example 6: ok
// CHECK-DAG: TileLocalOps.td example 7: ok
// CHECK-DAG: TileLocalOps.td example 8: ok
// CHECK-DAG: TileSyncOps.td example 0: ok
// CHECK-DAG: TileSyncOps.td example 1: ok
// CHECK-DAG: TileSyncOps.td example 2: ok
// CHECK-DAG: TileSyncOps.td example 3: ok
// CHECK-DAG: TileSyncOps.td example 4: ok
// CHECK-DAG: TileSyncOps.td example 5: ok
// CHECK-DAG: TileSyncOps.td example 6: ok
// CHECK-DAG: TileSyncOps.td example 7: ok
// CHECK: 28 examples checked, 0 failed
