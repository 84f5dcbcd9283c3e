# Installs the Python package the way a wheel lays it out (the
# tile_mlir_python component's libraries next to python/tile_mlir's
# sources) under PREFIX, then imports it from there with an isolated
# interpreter (no user site path, no PYTHONPATH) and compiles an example.
#   cmake -DBUILD_DIR=... -DSOURCE_DIR=... -DPYTHON=... -DPREFIX=... -P InstallPackage.cmake
file(REMOVE_RECURSE "${PREFIX}")
execute_process(
  COMMAND "${CMAKE_COMMAND}" --install "${BUILD_DIR}"
          --component tile_mlir_python --prefix "${PREFIX}"
  RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "installing the tile_mlir_python component failed")
endif()
file(GLOB sources "${SOURCE_DIR}/python/tile_mlir/*.py")
file(COPY ${sources} DESTINATION "${PREFIX}/tile_mlir")
set(check [=[
import sys
prefix, example = sys.argv[1], sys.argv[2]
sys.path.insert(0, prefix)
import tile_mlir
assert tile_mlir.__file__.startswith(prefix), tile_mlir.__file__
compiled = tile_mlir.compile(open(example).read(), chip="sm_90a")
assert ".entry tma_copy" in compiled.ptx, compiled.ptx[:200]
try:
    tile_mlir.compile("gpu.module @k { not tile ir }")
except tile_mlir.CompileError as error:
    assert "error" in str(error), str(error)
else:
    raise AssertionError("bad input compiled")
# The GEMM generators ship with it (kernels compiled on first use).
import tile_mlir.gemm as gemm
assert str(gemm._generator_dir()).startswith(prefix), gemm._generator_dir()
print("installed package at", tile_mlir.__file__, "compiles")
]=])
execute_process(
  COMMAND "${PYTHON}" -I -c "${check}" "${PREFIX}"
          "${SOURCE_DIR}/examples/tma_copy.mlir"
  RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "the installed package does not import or compile")
endif()
