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
tile_device_kernel(bench ${bench_mlir} sm_90a NO_SANITIZED)

find_program(TILE_NVCC nvcc PATHS $ENV{CUDA_HOME}/bin /usr/local/cuda/bin)
# tile_nvcc_cubin(<name> <source>): kernels/<name>.sm_90a.cubin from CUDA C++.
function(tile_nvcc_cubin name source)
  set(cubin ${TILE_DEVICE_KERNELS_DIR}/${name}.sm_90a.cubin)
  add_custom_command(OUTPUT ${cubin}
    COMMAND ${TILE_NVCC} -cubin -arch=sm_90a -O3 -o ${cubin} ${source}
    DEPENDS ${source}
    COMMENT "nvcc ${name}.cu")
  set_property(GLOBAL APPEND PROPERTY TILE_DEVICE_KERNEL_FILES ${cubin})
endfunction()
if(TILE_NVCC)
  tile_nvcc_cubin(dsmem_cg_reference ${TILE_SOURCE_DIR}/bench/dsmem_cg_reference.cu)
else()
  message(STATUS "nvcc not found: the DSMEM benchmark's CUDA reference is not built")
endif()

# The tile-IR GEMMs and their case list (bench/gemm_bench.py reads both).
set(gemm_mlir ${TILE_BINARY_DIR}/bench/gemm.mlir)
set(gemm_cases ${TILE_DEVICE_KERNELS_DIR}/gemm.cases.json)
set(gemm_generator ${TILE_SOURCE_DIR}/bench/Kernels/gen_gemm_kernels.py)
add_custom_command(OUTPUT ${gemm_mlir} ${gemm_cases}
  COMMAND ${Python3_EXECUTABLE} ${gemm_generator} ${gemm_mlir} ${gemm_cases}
  DEPENDS ${gemm_generator}
  COMMENT "Generating the GEMM kernels")
tile_device_kernel(gemm ${gemm_mlir} sm_90a)
set_property(GLOBAL APPEND PROPERTY TILE_DEVICE_KERNEL_FILES ${gemm_cases})

# The Blackwell GEMMs (compiled and assembled for sm_100a; gemm_bench.py
# runs them only on an sm_100 GPU).
set(gemm_sm100_mlir ${TILE_BINARY_DIR}/bench/gemm_sm100.mlir)
set(gemm_sm100_cases ${TILE_DEVICE_KERNELS_DIR}/gemm_sm100.cases.json)
set(gemm_sm100_generator ${TILE_SOURCE_DIR}/bench/Kernels/gen_gemm_sm100_kernels.py)
add_custom_command(OUTPUT ${gemm_sm100_mlir} ${gemm_sm100_cases}
  COMMAND ${Python3_EXECUTABLE} ${gemm_sm100_generator} ${gemm_sm100_mlir} ${gemm_sm100_cases}
  DEPENDS ${gemm_sm100_generator} ${gemm_generator}
  COMMENT "Generating the Blackwell GEMM kernels")
tile_device_kernel(gemm_sm100 ${gemm_sm100_mlir} sm_100a)
set_property(GLOBAL APPEND PROPERTY TILE_DEVICE_KERNEL_FILES ${gemm_sm100_cases})

# The forward-attention kernels and their case list (bench/attention_bench.py
# reads both).
set(attention_mlir ${TILE_BINARY_DIR}/bench/attention.mlir)
set(attention_cases ${TILE_DEVICE_KERNELS_DIR}/attention.cases.json)
set(attention_generator ${TILE_SOURCE_DIR}/bench/Kernels/gen_attention_kernels.py)
add_custom_command(OUTPUT ${attention_mlir} ${attention_cases}
  COMMAND ${Python3_EXECUTABLE} ${attention_generator} ${attention_mlir} ${attention_cases}
  DEPENDS ${attention_generator}
  COMMENT "Generating the attention kernels")
tile_device_kernel(attention ${attention_mlir} sm_90a FLAGS --check)
set_property(GLOBAL APPEND PROPERTY TILE_DEVICE_KERNEL_FILES ${attention_cases})

# The block-scaled FP8 GEMMs (dense, grouped contiguous, grouped masked) and
# their case list (python/tile_mlir/fp8.py and bench/fp8_bench.py read both).
set(fp8_mlir ${TILE_BINARY_DIR}/bench/fp8.mlir)
set(fp8_cases ${TILE_DEVICE_KERNELS_DIR}/fp8.cases.json)
set(fp8_generator ${TILE_SOURCE_DIR}/bench/Kernels/gen_fp8_kernels.py)
add_custom_command(OUTPUT ${fp8_mlir} ${fp8_cases}
  COMMAND ${Python3_EXECUTABLE} ${fp8_generator} ${fp8_mlir} ${fp8_cases}
  DEPENDS ${fp8_generator} ${gemm_generator}
          ${TILE_SOURCE_DIR}/bench/Kernels/gen_gemm_splitk_kernels.py
  COMMENT "Generating the block-scaled FP8 kernels")
tile_device_kernel(fp8 ${fp8_mlir} sm_90a FLAGS --check)
set_property(GLOBAL APPEND PROPERTY TILE_DEVICE_KERNEL_FILES ${fp8_cases})

# The split-K GEMMs and their reductions (python/tile_mlir/gemm.py chooses
# between them and the family above; bench/gemm_any_bench.py checks it).
set(gemm_splitk_mlir ${TILE_BINARY_DIR}/bench/gemm_splitk.mlir)
set(gemm_splitk_cases ${TILE_DEVICE_KERNELS_DIR}/gemm_splitk.cases.json)
set(gemm_splitk_generator ${TILE_SOURCE_DIR}/bench/Kernels/gen_gemm_splitk_kernels.py)
add_custom_command(OUTPUT ${gemm_splitk_mlir} ${gemm_splitk_cases}
  COMMAND ${Python3_EXECUTABLE} ${gemm_splitk_generator} ${gemm_splitk_mlir} ${gemm_splitk_cases}
  DEPENDS ${gemm_splitk_generator} ${gemm_generator}
  COMMENT "Generating the split-K GEMM kernels")
tile_device_kernel(gemm_splitk ${gemm_splitk_mlir} sm_90a FLAGS --check)
set_property(GLOBAL APPEND PROPERTY TILE_DEVICE_KERNEL_FILES ${gemm_splitk_cases})
