# The exported CMake package `TileMLIR`, from an install tree or straight
# from this build tree:
#   find_package(TileMLIR REQUIRED CONFIG)   # TileMLIR_DIR=<build>/lib/cmake/TileMLIR
#                                            # or CMAKE_PREFIX_PATH=<build> / <prefix>
#   target_link_libraries(app PRIVATE TileMLIR::TileDialect)
include(CMakePackageConfigHelpers)

install(DIRECTORY ${TILE_SOURCE_DIR}/include/tile DESTINATION include
  FILES_MATCHING PATTERN "*.h" PATTERN "*.td")
install(DIRECTORY ${TILE_BINARY_DIR}/include/tile DESTINATION include
  FILES_MATCHING PATTERN "*.inc")

set(TILE_INSTALL_CMAKE_DIR lib/cmake/TileMLIR)
install(EXPORT TileMLIRTargets NAMESPACE TileMLIR::
  DESTINATION ${TILE_INSTALL_CMAKE_DIR})

# Install tree: paths relative to the installed config file.
set(TILE_CONFIG_TD_DIR include)
configure_package_config_file(
  ${TILE_SOURCE_DIR}/cmake/TileMLIRConfig.cmake.in
  ${TILE_BINARY_DIR}/cmake/install/TileMLIRConfig.cmake
  INSTALL_DESTINATION ${TILE_INSTALL_CMAKE_DIR}
  PATH_VARS TILE_CONFIG_TD_DIR)
write_basic_package_version_file(
  ${TILE_BINARY_DIR}/${TILE_INSTALL_CMAKE_DIR}/TileMLIRConfigVersion.cmake
  VERSION ${PROJECT_VERSION} COMPATIBILITY SameMinorVersion)
install(FILES ${TILE_BINARY_DIR}/cmake/install/TileMLIRConfig.cmake
              ${TILE_BINARY_DIR}/${TILE_INSTALL_CMAKE_DIR}/TileMLIRConfigVersion.cmake
  DESTINATION ${TILE_INSTALL_CMAKE_DIR})

# Build tree: the same package at <build>/lib/cmake/TileMLIR, its targets
# the libraries and tools of this build (headers from the source and build
# include dirs, through the targets' BUILD_INTERFACE).
export(EXPORT TileMLIRTargets NAMESPACE TileMLIR::
  FILE ${TILE_BINARY_DIR}/${TILE_INSTALL_CMAKE_DIR}/TileMLIRTargets.cmake)
set(TILE_CONFIG_TD_DIR ${TILE_SOURCE_DIR}/include)
configure_package_config_file(
  ${TILE_SOURCE_DIR}/cmake/TileMLIRConfig.cmake.in
  ${TILE_BINARY_DIR}/${TILE_INSTALL_CMAKE_DIR}/TileMLIRConfig.cmake
  INSTALL_DESTINATION ${TILE_BINARY_DIR}/${TILE_INSTALL_CMAKE_DIR}
  INSTALL_PREFIX ${TILE_BINARY_DIR}
  PATH_VARS TILE_CONFIG_TD_DIR)
