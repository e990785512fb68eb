# tta_add_test_kernel_library(<target> NAME <lib> SPEC <spec.json> [PREFIX <p>] [LINK_ARGS <arg>...]
#                             [SHARED])
# tta_add_test_kernel_library(<target> NAME <lib> FROM <other target> ...)
#
# Builds a triton-aot library from a spec file at build time, the way a project would: one
# triton-aot-cc run (with a depfile, so editing a kernel rebuilds it), one triton-aot-ld run, and
# a library target of the generated sources linked with the runtime shim. The spec file names
# its own targets. The generated header is <lib>.h in the target's include path. With FROM, the
# library links what another test library's triton-aot-cc run compiled (other LINK_ARGS, no
# compile of its own).
# (The user-facing CMake functions, triton_add_kernel() / triton_add_library(), are cmake/.)
function(tta_add_test_kernel_library target)
  cmake_parse_arguments(PARSE_ARGV 1 arg "SHARED" "NAME;SPEC;PREFIX;FROM" "LINK_ARGS")
  if(arg_UNPARSED_ARGUMENTS OR NOT arg_NAME OR (NOT arg_SPEC AND NOT arg_FROM))
    message(FATAL_ERROR "tta_add_test_kernel_library(${target}): needs NAME and SPEC or FROM "
                        "(unexpected: ${arg_UNPARSED_ARGUMENTS})")
  endif()
  set(dir "${CMAKE_CURRENT_BINARY_DIR}/${target}")
  if(arg_FROM)
    set(index "${CMAKE_CURRENT_BINARY_DIR}/${arg_FROM}/cc/index.json")
  else()
    cmake_path(ABSOLUTE_PATH arg_SPEC BASE_DIRECTORY "${CMAKE_CURRENT_SOURCE_DIR}")
    set(index "${dir}/cc/index.json")
    add_custom_command(
      OUTPUT "${index}"
      COMMAND triton-aot-cc --spec "${arg_SPEC}" -o "${dir}/cc/" --index "${index}"
              --depfile "${dir}/cc/index.d" --python "${TRITON_AOT_PYTHON}"
              --source-root "${PROJECT_SOURCE_DIR}"
      DEPFILE "${dir}/cc/index.d"
      DEPENDS triton-aot-cc "${arg_SPEC}"
      COMMENT "triton-aot-cc ${arg_NAME}"
      VERBATIM)
  endif()
  set(prefix_args)
  if(arg_PREFIX)
    set(prefix_args --prefix ${arg_PREFIX})
  endif()
  # A tuning table among the linker's arguments is an input too: editing it relinks.
  set(link_inputs)
  set(next_is_table FALSE)
  foreach(arg IN LISTS arg_LINK_ARGS)
    if(next_is_table)
      list(APPEND link_inputs "${arg}")
    endif()
    string(COMPARE EQUAL "${arg}" "--tuning" next_is_table)
  endforeach()
  set(outputs "${dir}/${arg_NAME}.h" "${dir}/${arg_NAME}.c" "${dir}/${arg_NAME}.images.S"
              "${dir}/${arg_NAME}.images" "${dir}/${arg_NAME}.json")
  add_custom_command(
    OUTPUT ${outputs}
    COMMAND triton-aot-ld --name ${arg_NAME} ${prefix_args} ${arg_LINK_ARGS} -o "${dir}" "${index}"
    DEPENDS triton-aot-ld "${index}" ${link_inputs}
    COMMENT "triton-aot-ld ${arg_NAME}"
    VERBATIM)
  # .incbin is invisible to the compiler's dependency scanning: name the blob explicitly.
  set_source_files_properties("${dir}/${arg_NAME}.images.S" PROPERTIES
    OBJECT_DEPENDS "${dir}/${arg_NAME}.images")
  if(arg_SHARED)
    add_library(${target} SHARED "${dir}/${arg_NAME}.c" "${dir}/${arg_NAME}.images.S")
  else()
    add_library(${target} STATIC "${dir}/${arg_NAME}.c" "${dir}/${arg_NAME}.images.S")
  endif()
  target_include_directories(${target} PUBLIC "${dir}")
  target_link_libraries(${target} PRIVATE triton_aot_runtime)
  set_target_properties(${target} PROPERTIES C_VISIBILITY_PRESET hidden POSITION_INDEPENDENT_CODE ON)
  set_property(TARGET ${target} PROPERTY TTA_MANIFEST "${dir}/${arg_NAME}.json")
endfunction()
