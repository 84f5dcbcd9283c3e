# tile_add_library(<name> <sources...> [DEPENDS <targets...>] [LINK <libs...>])
#
# A plain static library that is installed and exported as TileMLIR::<name>.
# (add_mlir_library would put it into MLIR's own export set.)
function(tile_add_library name)
  cmake_parse_arguments(ARG "" "" "DEPENDS;LINK" ${ARGN})
  add_library(${name} STATIC ${ARG_UNPARSED_ARGUMENTS})
  target_include_directories(${name} PUBLIC
    $<BUILD_INTERFACE:${TILE_SOURCE_DIR}/include>
    $<BUILD_INTERFACE:${TILE_BINARY_DIR}/include>
    $<INSTALL_INTERFACE:include>)
  if(ARG_DEPENDS)
    add_dependencies(${name} ${ARG_DEPENDS})
  endif()
  if(ARG_LINK)
    target_link_libraries(${name} PUBLIC ${ARG_LINK})
  endif()
  set_target_properties(${name} PROPERTIES EXPORT_NAME ${name})
  install(TARGETS ${name} EXPORT TileMLIRTargets
    ARCHIVE DESTINATION lib LIBRARY DESTINATION lib)
  set_property(GLOBAL APPEND PROPERTY TILE_LIBRARIES ${name})
endfunction()
