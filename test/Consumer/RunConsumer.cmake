# ctest driver: install tile-mlir into a scratch prefix, configure and build
# the consumer project against it, run it, check its output.
function(run step)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out
                  ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "${step} failed (${rc}):\n${out}\n${err}")
  endif()
  set(last_output "${out}" PARENT_SCOPE)
endfunction()

set(prefix ${CONSUMER_BINARY_DIR}/install)
file(REMOVE_RECURSE ${prefix} ${CONSUMER_BINARY_DIR}/build)
run("install" ${CMAKE_COMMAND} --install ${TILE_BUILD_DIR} --prefix ${prefix})

set(flags "")
if(TILE_ENABLE_SANITIZERS)
  set(flags "-fsanitize=address,undefined -U__SANITIZE_ADDRESS__")
endif()
run("configure" ${CMAKE_COMMAND} -G Ninja -S ${CONSUMER_SOURCE_DIR}
    -B ${CONSUMER_BINARY_DIR}/build -DCMAKE_BUILD_TYPE=Release
    -DCMAKE_PREFIX_PATH=${prefix} -DMLIR_DIR=${MLIR_DIR}
    "-DCMAKE_CXX_FLAGS=${flags}" "-DCMAKE_EXE_LINKER_FLAGS=${flags}")
run("build" ${CMAKE_COMMAND} --build ${CONSUMER_BINARY_DIR}/build)
run("run" ${CONSUMER_BINARY_DIR}/build/tile-consumer
    ${CONSUMER_SOURCE_DIR}/input.mlir)

foreach(expected
    "tile.alloc_shared -> !tile.buffer<8x256xf16, shared, #tile.layout<S[(8,4,64):(64,512,1)], swizzle<3,3,3>>> : 2048 elements"
    "tile.tmem_buffer -> !tile.buffer<32x16xui8, tmem, #tile.layout<S[(32,16):(1@TLane,1@TCol)] + R[4:32@TLane]>> : 512 elements"
    "buffers: 2")
  string(FIND "${last_output}" "${expected}" at)
  if(at EQUAL -1)
    message(FATAL_ERROR "missing in consumer output: ${expected}\n--\n${last_output}")
  endif()
endforeach()
message(STATUS "consumer output:\n${last_output}")
