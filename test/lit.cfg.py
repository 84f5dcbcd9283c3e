# -*- Python -*-
import os

import lit.formats
from lit.llvm import llvm_config
from lit.llvm.subst import ToolSubst

config.name = "TILE"
config.test_format = lit.formats.ShTest(not llvm_config.use_lit_shell)
config.suffixes = [".mlir"]
config.excludes = ["Consumer", "Inputs", "lit.cfg.py", "CMakeLists.txt", "check_td_examples.py"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.tile_obj_root, "test")

config.substitutions.append(("%PATH%", config.environment["PATH"]))
llvm_config.with_system_environment(["HOME", "INCLUDE", "LIB", "TMP", "TEMP"])
llvm_config.use_default_substitutions()

llvm_config.with_environment("PATH", config.llvm_tools_dir, append_path=True)
llvm_config.with_environment("PATH", config.tile_tools_dir, append_path=True)

config.substitutions.append(("%tile_src_root", config.tile_src_root))

tools = [ToolSubst("tile-opt", unresolved="fatal"),
         ToolSubst("tile-compile", unresolved="fatal")]

# `UNSUPPORTED: sanitizers` / `REQUIRES: sanitizers`: a tree built with
# ASan + UBSan (TILE_ENABLE_SANITIZERS), where a whole kernel family's
# compile takes minutes; that tree compiles one kernel of each form instead
# (Compile/kernel-families-sanitized.mlir).
if config.tile_sanitizers.upper() in ("ON", "1", "TRUE", "YES"):
    config.available_features.add("sanitizers")

# `REQUIRES: ptxas`: lowering tests assemble their PTX when ptxas exists
# (PATH or /usr/local/cuda/bin).
if config.ptxas and os.path.exists(config.ptxas):
    config.available_features.add("ptxas")
    tools.append(ToolSubst("ptxas", command=config.ptxas))
    config.substitutions.append(
        ("%cuda_toolkit", os.path.dirname(os.path.dirname(config.ptxas))))

llvm_config.add_tool_substitutions(tools, [config.tile_tools_dir])
