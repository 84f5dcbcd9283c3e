# -*- Python -*-
# The tutorials' .mlir files are lit tests with the configuration of test/
# (tools, substitutions, the `ptxas` feature). CMake writes
# build/docs/tutorials/lit.site.cfg.py, which loads build/test's site
# configuration and then this file; this file only re-roots the suite here.
import os

if not hasattr(config, "tile_obj_root"):
    lit_config.fatal("run lit on the build tree: lit build/docs/tutorials")

config.name = "TILE-TUTORIALS"
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.tile_obj_root, "docs", "tutorials")
# Only the .mlir files are tests (test/lit.cfg.py sets the suffixes).
config.suffixes = [".mlir"]
