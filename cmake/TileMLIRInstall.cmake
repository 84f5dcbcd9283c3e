# Install rules and the exported CMake package `TileMLIR`:
#   find_package(TileMLIR REQUIRED CONFIG)
#   target_link_libraries(app PRIVATE TileMLIR::TileDialect)
include(CMakePackageConfigHelpers)

install(DIRECTORY ${TILE_SOURCE_DIR}/include/tile DESTINATION include
  FILES_MATCHING PATTERN "*.h" PATTERN "*.td")
install(DIRECTORY ${TILE_BINARY_DIR}/include/tile DESTINATION include
  FILES_MATCHING PATTERN "*.inc")

set(TILE_INSTALL_CMAKE_DIR lib/cmake/TileMLIR)
install(EXPORT TileMLIRTargets NAMESPACE TileMLIR::
  DESTINATION ${TILE_INSTALL_CMAKE_DIR})

configure_package_config_file(
  ${TILE_SOURCE_DIR}/cmake/TileMLIRConfig.cmake.in
  ${TILE_BINARY_DIR}/TileMLIRConfig.cmake
  INSTALL_DESTINATION ${TILE_INSTALL_CMAKE_DIR})
write_basic_package_version_file(
  ${TILE_BINARY_DIR}/TileMLIRConfigVersion.cmake
  VERSION ${PROJECT_VERSION} COMPATIBILITY SameMinorVersion)
install(FILES ${TILE_BINARY_DIR}/TileMLIRConfig.cmake
              ${TILE_BINARY_DIR}/TileMLIRConfigVersion.cmake
  DESTINATION ${TILE_INSTALL_CMAKE_DIR})
