# ctest driver: configure and build the consumer project against tile-mlir
# twice — installed into a scratch prefix, and straight from the build tree
# (TileMLIR_DIR=<build>/lib/cmake/TileMLIR) — run it, check its output.
function(run step)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out
                  ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "${step} failed (${rc}):\n${out}\n${err}")
  endif()
  set(last_output "${out}" PARENT_SCOPE)
endfunction()

function(expect_in output)
  foreach(expected ${ARGN})
    string(FIND "${output}" "${expected}" at)
    if(at EQUAL -1)
      message(FATAL_ERROR "missing in consumer output: ${expected}\n--\n${output}")
    endif()
  endforeach()
endfunction()

set(flags "")
if(TILE_ENABLE_SANITIZERS)
  set(flags "-fsanitize=address,undefined -U__SANITIZE_ADDRESS__")
endif()

set(prefix ${CONSUMER_BINARY_DIR}/install)
file(REMOVE_RECURSE ${prefix})
run("install" ${CMAKE_COMMAND} --install ${TILE_BUILD_DIR} --prefix ${prefix})

foreach(tree install build)
  set(build ${CONSUMER_BINARY_DIR}/build-${tree})
  file(REMOVE_RECURSE ${build})
  if(tree STREQUAL "install")
    set(find -DCMAKE_PREFIX_PATH=${prefix})
  else()
    set(find -DTileMLIR_DIR=${TILE_BUILD_DIR}/lib/cmake/TileMLIR)
  endif()
  run("configure (${tree} tree)" ${CMAKE_COMMAND} -G Ninja
      -S ${CONSUMER_SOURCE_DIR} -B ${build} -DCMAKE_BUILD_TYPE=Release
      ${find} -DMLIR_DIR=${MLIR_DIR}
      "-DCMAKE_CXX_FLAGS=${flags}" "-DCMAKE_EXE_LINKER_FLAGS=${flags}")
  run("build (${tree} tree)" ${CMAKE_COMMAND} --build ${build})

  run("tile-consumer (${tree} tree)" ${build}/tile-consumer
      ${CONSUMER_SOURCE_DIR}/input.mlir)
  expect_in("${last_output}"
    "tile.alloc_shared -> !tile.buffer<8x256xf16, shared, #tile.layout<S[(8,4,64):(64,512,1)], swizzle<3,3,3>>> : 2048 elements"
    "tile.tmem_buffer -> !tile.buffer<32x16xui8, tmem, #tile.layout<S[(32,16):(1@TLane,1@TCol)] + R[4:32@TLane]>> : 512 elements"
    "buffers: 2")

  # The consumer's own variant lowers a copy no built-in variant takes,
  # with the check on: rows 8..15 (element 512) into stage 1 (element 512),
  # 1024 bytes.
  run("tile-consumer-variant (${tree} tree)" ${build}/tile-consumer-variant
      ${CONSUMER_SOURCE_DIR}/variant-input.mlir)
  expect_in("${last_output}"
    "llvm.func @vendor_shared_copy(!llvm.ptr<3>, !llvm.ptr<3>, i32)"
    "llvm.getelementptr %arg0[512]"
    "llvm.getelementptr %arg1[512]"
    "llvm.mlir.constant(1024 : i32)"
    "llvm.call @vendor_shared_copy("
    "lowered with the check on")
  # A broken emitter is caught by the variant's check.
  execute_process(COMMAND ${build}/tile-consumer-variant
      ${CONSUMER_SOURCE_DIR}/variant-input.mlir --wrong-byte-count
      RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(rc EQUAL 0)
    message(FATAL_ERROR "the variant's check let a wrong byte count through:\n${out}")
  endif()
  expect_in("${err}"
    "vendor_call check: the call moves 1022 bytes, the region has 1024")
  message(STATUS "consumer (${tree} tree) output:\n${last_output}")
endforeach()
