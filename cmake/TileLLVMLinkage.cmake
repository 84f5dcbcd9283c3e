# How the LLVM libraries are linked.
#
# Debian's MLIR libraries link LLVM as one shared library, libLLVM.so. A
# process that loads it spends ~15 ms before main() (the dynamic loader binds
# its ~26,000 symbol relocations and runs the static constructors of all of
# LLVM), more than tile-compile then takes to compile a kernel. With
# TILE_LINK_LLVM_STATIC (the default where the static component libraries
# are installed, as llvm-22-dev does, except in sanitizer builds) every MLIR
# library links the LLVM components instead: a tool carries only the LLVM
# code it uses, starts in ~5 ms, and holds one copy of LLVMSupport rather
# than two.
# Sanitizer builds keep libLLVM.so: they exist to check this project's
# code, start-up time does not matter there, and their links stay short.
if(TILE_ENABLE_SANITIZERS)
  set(_tile_link_static_default OFF)
else()
  set(_tile_link_static_default ON)
endif()
option(TILE_LINK_LLVM_STATIC
  "Link LLVM's static component libraries instead of libLLVM.so"
  ${_tile_link_static_default})

if(TILE_LINK_LLVM_STATIC)
  set(_tile_llvm_static_ok FALSE)
  if(TARGET LLVMCore)
    get_target_property(_tile_llvm_core LLVMCore LOCATION)
    if(_tile_llvm_core AND EXISTS "${_tile_llvm_core}")
      set(_tile_llvm_static_ok TRUE)
    endif()
  endif()
  if(NOT _tile_llvm_static_ok)
    message(STATUS "LLVM's static libraries are not installed: linking libLLVM.so")
    set(TILE_LINK_LLVM_STATIC OFF)
  endif()
endif()

if(TILE_LINK_LLVM_STATIC)
  # What the MLIR libraries we link use (their own dependencies follow from
  # the component targets): the LLVM IR export, the NVPTX backend, LLVM's
  # optimisation pipeline and the bitcode linker.
  llvm_map_components_to_libnames(_tile_llvm_components
    Core Support TargetParser Analysis TransformUtils IPO Passes Target MC
    AsmParser IRReader BitReader BitWriter Linker FrontendOpenMP
    NVPTXCodeGen NVPTXDesc NVPTXInfo)
  foreach(_tile_target IN LISTS MLIR_EXPORTED_TARGETS)
    if(NOT TARGET ${_tile_target})
      continue()
    endif()
    get_target_property(_tile_libs ${_tile_target} INTERFACE_LINK_LIBRARIES)
    if(_tile_libs AND "LLVM" IN_LIST _tile_libs)
      list(REMOVE_ITEM _tile_libs LLVM)
      list(APPEND _tile_libs ${_tile_llvm_components})
      set_target_properties(${_tile_target} PROPERTIES
        INTERFACE_LINK_LIBRARIES "${_tile_libs}")
    endif()
  endforeach()
  # Only the sections something references: a tool links a few hundred of
  # LLVM's and MLIR's archives, and without this carries all of every
  # object file it pulls in (tile-compile: 78 MB instead of 135 MB, and
  # fewer pages for the loader to relocate).
  add_link_options(LINKER:--gc-sections)
  message(STATUS "Linking LLVM's static component libraries")
endif()
