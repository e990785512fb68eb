# The TritonAOT package: installed (lib/cmake/TritonAOT) and usable from the build tree
# (-DTritonAOT_DIR=<build dir>), with the same TritonAOT:: targets and functions as
# add_subdirectory() gives.
include(CMakePackageConfigHelpers)

set(TRITON_AOT_INSTALL_CMAKEDIR "${CMAKE_INSTALL_LIBDIR}/cmake/TritonAOT")
set(_tta_modules
  "${PROJECT_SOURCE_DIR}/cmake/TritonAOTFunctions.cmake"
  "${PROJECT_SOURCE_DIR}/cmake/TritonAOTArchitectures.cmake"
  "${PROJECT_SOURCE_DIR}/cmake/TritonAOTPython.cmake"
  "${PROJECT_SOURCE_DIR}/cmake/TritonAOTSignature.cmake"
  "${PROJECT_SOURCE_DIR}/cmake/TritonAOTTorch.cmake"
  "${PROJECT_SOURCE_DIR}/cmake/TritonAOTLibraryConfig.cmake.in")

# Installed: the modules sit next to the config file, the requirements in share/triton-aot.
install(EXPORT TritonAOTTargets NAMESPACE TritonAOT:: DESTINATION "${TRITON_AOT_INSTALL_CMAKEDIR}")
set(TRITON_AOT_CONFIG_MODULE_DIR "${TRITON_AOT_INSTALL_CMAKEDIR}")
set(TRITON_AOT_CONFIG_REQUIREMENTS "${TRITON_AOT_DATADIR}/requirements.txt")
set(TRITON_AOT_CONFIG_RUNTIME_HEADER "${CMAKE_INSTALL_INCLUDEDIR}/triton_aot/runtime.h")
set(TRITON_AOT_CONFIG_FRONTEND_DIR "${TRITON_AOT_DATADIR}/frontend")
configure_package_config_file(cmake/TritonAOTConfig.cmake.in
  "${PROJECT_BINARY_DIR}/package/TritonAOTConfig.cmake"
  INSTALL_DESTINATION "${TRITON_AOT_INSTALL_CMAKEDIR}"
  PATH_VARS TRITON_AOT_CONFIG_MODULE_DIR TRITON_AOT_CONFIG_REQUIREMENTS
            TRITON_AOT_CONFIG_RUNTIME_HEADER TRITON_AOT_CONFIG_FRONTEND_DIR)
write_basic_package_version_file("${PROJECT_BINARY_DIR}/TritonAOTConfigVersion.cmake"
  COMPATIBILITY SameMinorVersion)  # 0.x: minor versions may change the generated ABI
install(FILES "${PROJECT_BINARY_DIR}/package/TritonAOTConfig.cmake"
              "${PROJECT_BINARY_DIR}/TritonAOTConfigVersion.cmake" ${_tta_modules}
        DESTINATION "${TRITON_AOT_INSTALL_CMAKEDIR}")
install(FILES requirements.txt DESTINATION "${TRITON_AOT_DATADIR}")

# Build tree: the modules and requirements stay in the source tree.
export(EXPORT TritonAOTTargets NAMESPACE TritonAOT:: FILE "${PROJECT_BINARY_DIR}/TritonAOTTargets.cmake")
set(TRITON_AOT_CONFIG_MODULE_DIR "${PROJECT_SOURCE_DIR}/cmake")
set(TRITON_AOT_CONFIG_REQUIREMENTS "${PROJECT_SOURCE_DIR}/requirements.txt")
set(TRITON_AOT_CONFIG_RUNTIME_HEADER "${PROJECT_SOURCE_DIR}/runtime-shim/include/triton_aot/runtime.h")
set(TRITON_AOT_CONFIG_FRONTEND_DIR "${PROJECT_SOURCE_DIR}/compiler/frontend")
configure_package_config_file(cmake/TritonAOTConfig.cmake.in
  "${PROJECT_BINARY_DIR}/TritonAOTConfig.cmake"
  INSTALL_DESTINATION "${PROJECT_BINARY_DIR}" INSTALL_PREFIX "${PROJECT_BINARY_DIR}"
  PATH_VARS TRITON_AOT_CONFIG_MODULE_DIR TRITON_AOT_CONFIG_REQUIREMENTS
            TRITON_AOT_CONFIG_RUNTIME_HEADER TRITON_AOT_CONFIG_FRONTEND_DIR)

# add_subdirectory(): the same functions, configured the same way.
set_property(GLOBAL PROPERTY TRITON_AOT_BUILT_WITH_PYTHON "${TRITON_AOT_PYTHON}")
set_property(GLOBAL PROPERTY TRITON_AOT_REQUIREMENTS_FILE "${PROJECT_SOURCE_DIR}/requirements.txt")
set_property(GLOBAL PROPERTY TRITON_AOT_RUNTIME_HEADER "${TRITON_AOT_CONFIG_RUNTIME_HEADER}")
set_property(GLOBAL PROPERTY TRITON_AOT_FRONTEND_DIR "${TRITON_AOT_CONFIG_FRONTEND_DIR}")
include(TritonAOTFunctions)
