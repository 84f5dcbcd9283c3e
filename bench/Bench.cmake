# Benchmark kernels, included by test/Device/CMakeLists.txt (they share its
# kernel folder; custom-command outputs must belong to that directory) and
# executable settings. The CUDA C++ reference needs nvcc; without it the
# DSMEM comparison says SKIP.
set(bench_mlir ${TILE_BINARY_DIR}/bench/bench.mlir)
set(bench_generator ${TILE_SOURCE_DIR}/bench/Kernels/gen_bench_kernels.py)
add_custom_command(OUTPUT ${bench_mlir}
  COMMAND ${Python3_EXECUTABLE} ${bench_generator} ${bench_mlir}
  DEPENDS ${bench_generator}
  COMMENT "Generating the benchmark kernels")
tile_device_kernel(bench ${bench_mlir} sm_90a)

find_program(TILE_NVCC nvcc PATHS $ENV{CUDA_HOME}/bin /usr/local/cuda/bin)
if(TILE_NVCC)
  set(reference ${TILE_DEVICE_KERNELS_DIR}/dsmem_cg_reference.sm_90a.cubin)
  add_custom_command(OUTPUT ${reference}
    COMMAND ${TILE_NVCC} -cubin -arch=sm_90a -O3 -o ${reference}
            ${TILE_SOURCE_DIR}/bench/dsmem_cg_reference.cu
    DEPENDS ${TILE_SOURCE_DIR}/bench/dsmem_cg_reference.cu
    COMMENT "nvcc dsmem_cg_reference.cu (the DSMEM benchmark's reference)")
  set_property(GLOBAL APPEND PROPERTY TILE_DEVICE_KERNEL_FILES ${reference})
else()
  message(STATUS "nvcc not found: the DSMEM benchmark's CUDA reference is not built")
endif()
