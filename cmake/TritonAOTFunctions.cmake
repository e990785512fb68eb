# triton_add_kernel(), triton_add_library(), triton_install_library(): Triton kernels declared in
# CMake, built into an ordinary library target. Reference: docs/cmake.md.
#
# Needs the targets TritonAOT::triton-aot-cc, TritonAOT::triton-aot-ld and
# TritonAOT::runtime_objects (from find_package(TritonAOT) or add_subdirectory), and the global
# properties TRITON_AOT_BUILT_WITH_PYTHON, TRITON_AOT_REQUIREMENTS_FILE and
# TRITON_AOT_RUNTIME_HEADER.
include_guard(GLOBAL)
include(${CMAKE_CURRENT_LIST_DIR}/TritonAOTArchitectures.cmake)
include(${CMAKE_CURRENT_LIST_DIR}/TritonAOTPython.cmake)
include(${CMAKE_CURRENT_LIST_DIR}/TritonAOTSignature.cmake)
include(${CMAKE_CURRENT_LIST_DIR}/TritonAOTTorch.cmake)

# _triton_aot_call_line(<file> <command> <name> <out>): the line of `<command>(<name>` in <file>
# (CMake tells a function its caller's file, not the line), or "" when the call is not written
# out there (made by a loop or a macro). The name is unique in a project, so the first is it.
function(_triton_aot_call_line file command name out_var)
  set(${out_var} "" PARENT_SCOPE)
  if(NOT EXISTS "${file}")
    return()
  endif()
  file(READ "${file}" content)
  # One list element per line: the characters a list would read otherwise go first.
  string(REGEX REPLACE "[][;\\\\]" "_" content "${content}")
  string(REPLACE "\n" ";" lines "${content}")
  set(number 0)
  foreach(text IN LISTS lines)
    math(EXPR number "${number} + 1")
    if(text MATCHES "^[ \t]*${command}[ \t]*\\([ \t]*${name}([ \t)]|$)")
      set(${out_var} ${number} PARENT_SCOPE)
      return()
    endif()
  endforeach()
endfunction()

# triton_add_kernel(<name> SOURCE <file> | MODULE <dotted.name> [FUNCTION <fn>] SIGNATURE <sig>...
#                   [GRID <x> [<y> [<z>]]] [CONFIG <config>...] [DROP_PRE_HOOKS]
#                   [HEURISTIC <NAME=C expression>...] [HEURISTIC_VALUES <NAME=V1,V2>...]
#                   [OPTIONS <triton-aot-cc argument>...]
#                   [TUNE_KEY <param>... TUNE_SHAPES <"v1,v2,...">... [TUNE_ARGS <"name=expr">...]
#                    [TUNE_GRID <x> [<y> [<z>]]]]
#                   [SPECIALIZE [AUTO] [<"name=value, ...">...]])
# Without CONFIG, a @triton.autotune'd kernel's configs are its decorator's. TUNE_*: what the
# `tune` target times (docs/tuning.md). SPECIALIZE: the variants Triton's JIT would compile for
# these calls, AUTO for each TUNE_SHAPES shape with its TUNE_ARGS (--specialize-for).
function(triton_add_kernel name)
  set(context "triton_add_kernel(${name})")
  set(keywords "the keywords are SOURCE, MODULE, FUNCTION, HEURISTIC, HEURISTIC_VALUES, "
               "SIGNATURE, GRID, CONFIG, DROP_PRE_HOOKS, OPTIONS, TUNE_KEY, TUNE_SHAPES, "
               "TUNE_ARGS, TUNE_GRID and SPECIALIZE")
  string(JOIN "" keywords ${keywords})
  cmake_parse_arguments(PARSE_ARGV 1 arg "DROP_PRE_HOOKS" "SOURCE;MODULE;FUNCTION"
                        "SIGNATURE;GRID;CONFIG;OPTIONS;HEURISTIC;HEURISTIC_VALUES;TUNE_KEY;TUNE_SHAPES;TUNE_ARGS;TUNE_GRID;SPECIALIZE")
  if(arg_UNPARSED_ARGUMENTS)
    list(GET arg_UNPARSED_ARGUMENTS 0 unknown)
    message(FATAL_ERROR "${context}: unknown keyword '${unknown}'; ${keywords}")
  endif()
  # Passed to triton-aot-cc as --heuristic / --heuristic-values (docs/compiler.md#heuristics).
  foreach(value IN LISTS arg_HEURISTIC)
    list(APPEND arg_OPTIONS --heuristic "${value}")
  endforeach()
  foreach(value IN LISTS arg_HEURISTIC_VALUES)
    list(APPEND arg_OPTIONS --heuristic-values "${value}")
  endforeach()
  foreach(keyword IN LISTS arg_KEYWORDS_MISSING_VALUES)
    message(FATAL_ERROR "${context}: ${keyword} needs a value")
  endforeach()
  # A misspelt keyword after a list keyword reads as one more value of that list: the likely
  # misspellings anywhere, and any bare upper-case word where a value always has '=' (a config,
  # a heuristic, a tuning argument) or is numbers (a tuning shape).
  foreach(value IN LISTS arg_SIGNATURE arg_GRID arg_CONFIG arg_OPTIONS arg_TUNE_KEY
                         arg_TUNE_SHAPES arg_TUNE_ARGS arg_TUNE_GRID arg_SPECIALIZE)
    if(value MATCHES "^(SIGNATURES|CONFIGS|GRIDS|SOURCES|FUNCTIONS|OPTION|KERNELS?|ARCHITECTURES|TARGETS?|PREFIX|NAME|DEPENDS|NUM_WARPS|NUM_STAGES|HEURISTICS|HEURISTIC_VALUE|TUNE_[A-Z_]+)$")
      message(FATAL_ERROR "${context}: unknown keyword '${value}'; ${keywords}")
    endif()
  endforeach()
  foreach(value IN LISTS arg_CONFIG arg_HEURISTIC arg_HEURISTIC_VALUES arg_TUNE_SHAPES arg_TUNE_ARGS)
    if(value MATCHES "^[A-Z][A-Z0-9_]*$")
      message(FATAL_ERROR "${context}: unknown keyword '${value}'; ${keywords}")
    endif()
  endforeach()
  _triton_aot_check_tuning("${context}")
  _triton_aot_specialize_options("${context}")
  if(NOT name MATCHES "^[A-Za-z_][A-Za-z0-9_]*$")
    message(FATAL_ERROR "${context}: the kernel's name must be a C identifier (it names the "
                        "function <prefix>_${name})")
  endif()
  if(DEFINED arg_MODULE AND DEFINED arg_SOURCE)
    message(FATAL_ERROR "${context}: SOURCE or MODULE, not both")
  elseif(DEFINED arg_MODULE)
    _triton_aot_module_file("${context}" "${arg_MODULE}" arg_SOURCE)
  elseif(NOT DEFINED arg_SOURCE)
    message(FATAL_ERROR "${context}: SOURCE (a kernel file) or MODULE (a module of an installed "
                        "package) is missing; see docs/cmake.md")
  endif()
  foreach(required SIGNATURE)
    if(NOT DEFINED arg_${required})
      message(FATAL_ERROR "${context}: ${required} is missing; see docs/cmake.md")
    endif()
  endforeach()
  get_property(declared_at GLOBAL PROPERTY TRITON_AOT_KERNEL_${name}_DECLARED_IN)
  if(declared_at)
    message(FATAL_ERROR "${context}: a kernel named '${name}' is already declared (in "
                        "${declared_at}); kernel names are unique in a project")
  endif()

  cmake_path(ABSOLUTE_PATH arg_SOURCE BASE_DIRECTORY "${CMAKE_CURRENT_SOURCE_DIR}" NORMALIZE)
  if(NOT EXISTS "${arg_SOURCE}" OR IS_DIRECTORY "${arg_SOURCE}")
    message(FATAL_ERROR "${context}: SOURCE '${arg_SOURCE}' is not a file")
  endif()
  if(NOT arg_FUNCTION)
    set(arg_FUNCTION "${name}")
  endif()
  if(arg_SOURCE MATCHES "\\.py$")
    _triton_aot_check_function("${context}" "${arg_SOURCE}" "${arg_FUNCTION}")
  endif()

  foreach(signature IN LISTS arg_SIGNATURE)
    _triton_aot_check_signature_types("${context}" "${signature}")
  endforeach()

  # No GRID: the caller passes the grid to the entry point (grid_x, grid_y, grid_z).
  set(grid "")
  if(DEFINED arg_GRID)
    _triton_aot_grid("${context}" grid ${arg_GRID})
  endif()
  # A constexpr name without a value in some CONFIG is the compiler's to check: the name of a
  # parameter that @triton.heuristics sets or that has a default needs none (docs/compiler.md).

  set_property(GLOBAL PROPERTY TRITON_AOT_KERNEL_${name}_DECLARED_IN "${CMAKE_CURRENT_LIST_FILE}")
  _triton_aot_call_line("${CMAKE_CURRENT_LIST_FILE}" triton_add_kernel "${name}" line)
  set_property(GLOBAL PROPERTY TRITON_AOT_KERNEL_${name}_DECLARED_LINE "${line}")
  set_property(GLOBAL PROPERTY TRITON_AOT_KERNEL_${name}_SOURCE "${arg_SOURCE}")
  set_property(GLOBAL PROPERTY TRITON_AOT_KERNEL_${name}_FUNCTION "${arg_FUNCTION}")
  set_property(GLOBAL PROPERTY TRITON_AOT_KERNEL_${name}_SIGNATURES "${arg_SIGNATURE}")
  set_property(GLOBAL PROPERTY TRITON_AOT_KERNEL_${name}_GRID "${grid}")
  set_property(GLOBAL PROPERTY TRITON_AOT_KERNEL_${name}_CONFIGS "${arg_CONFIG}")
  if(arg_DROP_PRE_HOOKS)
    list(APPEND arg_OPTIONS --drop-pre-hooks)
  endif()
  set_property(GLOBAL PROPERTY TRITON_AOT_KERNEL_${name}_OPTIONS "${arg_OPTIONS}")
  foreach(property TUNE_KEY TUNE_SHAPES TUNE_ARGS TUNE_GRID)
    set_property(GLOBAL PROPERTY TRITON_AOT_KERNEL_${name}_${property} "${arg_${property}}")
  endforeach()
  set_property(GLOBAL APPEND PROPERTY TRITON_AOT_KERNELS "${name}")
endfunction()

# TUNE_KEY, TUNE_SHAPES, TUNE_ARGS and TUNE_GRID of triton_add_kernel() (the caller's arg_*):
# together or not at all, each shape as many positive integers as the key has names.
macro(_triton_aot_check_tuning context)
  if(DEFINED arg_TUNE_KEY OR DEFINED arg_TUNE_SHAPES OR DEFINED arg_TUNE_ARGS OR DEFINED arg_TUNE_GRID)
    if(NOT DEFINED arg_TUNE_KEY OR NOT DEFINED arg_TUNE_SHAPES)
      message(FATAL_ERROR "${context}: tuning needs TUNE_KEY (the integer parameters the "
                          "dispatch keys on) and TUNE_SHAPES (their values to tune, one "
                          "\"v1,v2,...\" per shape); see docs/tuning.md")
    endif()
    list(LENGTH arg_TUNE_KEY _tta_key_count)
    foreach(_tta_shape IN LISTS arg_TUNE_SHAPES)
      string(REPLACE "," ";" _tta_values "${_tta_shape}")
      list(LENGTH _tta_values _tta_count)
      if(NOT _tta_count EQUAL _tta_key_count OR NOT _tta_shape MATCHES "^[1-9][0-9]*(,[1-9][0-9]*)*$")
        message(FATAL_ERROR "${context}: TUNE_SHAPES '${_tta_shape}': expected ${_tta_key_count} "
                            "positive integers separated by commas, one per TUNE_KEY name "
                            "(${arg_TUNE_KEY})")
      endif()
    endforeach()
    foreach(_tta_arg IN LISTS arg_TUNE_ARGS)
      if(NOT _tta_arg MATCHES "^[A-Za-z_][A-Za-z0-9_]*=.+$")
        message(FATAL_ERROR "${context}: TUNE_ARGS '${_tta_arg}': expected <parameter>=<expression>, "
                            "e.g. \"a_ptr=M * K\" (a pointer's element count) or \"stride_am=K\"")
      endif()
    endforeach()
    if(DEFINED arg_TUNE_GRID AND DEFINED arg_GRID)
      message(FATAL_ERROR "${context}: TUNE_GRID is for a kernel without GRID (the caller's grid); "
                          "this kernel computes its own")
    endif()
  endif()
endmacro()

# SPECIALIZE of triton_add_kernel() (the caller's arg_*) as triton-aot-cc options, appended to
# arg_OPTIONS: AUTO gives each TUNE_SHAPES shape as a call (TUNE_KEY names) with TUNE_ARGS to
# compute its other arguments; a "name=value, ..." is a call as it is.
macro(_triton_aot_specialize_options context)
  foreach(_tta_call IN LISTS arg_SPECIALIZE)
    if(_tta_call STREQUAL "AUTO")
      if(NOT DEFINED arg_TUNE_SHAPES)
        message(FATAL_ERROR "${context}: SPECIALIZE AUTO specializes for the tuned shapes, and "
                            "there is no TUNE_SHAPES; give the calls instead: SPECIALIZE "
                            "\"M=1, N=4096, K=4096\"")
      endif()
      foreach(_tta_shape IN LISTS arg_TUNE_SHAPES)
        string(REPLACE "," ";" _tta_values "${_tta_shape}")
        set(_tta_text "")
        foreach(_tta_name _tta_value IN ZIP_LISTS arg_TUNE_KEY _tta_values)
          string(APPEND _tta_text "${_tta_name}=${_tta_value},")
        endforeach()
        list(APPEND arg_OPTIONS --specialize-for "${_tta_text}")
      endforeach()
    elseif(_tta_call MATCHES "^ *[A-Za-z_][A-Za-z0-9_]* *= *-?[0-9]+( *[, ] *[A-Za-z_][A-Za-z0-9_]* *= *-?[0-9]+)* *,? *$")
      list(APPEND arg_OPTIONS --specialize-for "${_tta_call}")
    else()
      message(FATAL_ERROR "${context}: SPECIALIZE '${_tta_call}': expected AUTO or a call, its "
                          "integer arguments by name (\"M=1, N=4096, K=4096\")")
    endif()
  endforeach()
  if(DEFINED arg_SPECIALIZE)
    foreach(_tta_arg IN LISTS arg_TUNE_ARGS)
      list(APPEND arg_OPTIONS --specialize-arg "${_tta_arg}")
    endforeach()
  endif()
endmacro()

# The .py file of MODULE <dotted.name>, found by the compile interpreter as it would import it
# (without running the package's code), at configure time.
function(_triton_aot_module_file context module out_var)
  _triton_aot_python(python)
  get_property(frontend GLOBAL PROPERTY TRITON_AOT_FRONTEND_DIR)
  execute_process(COMMAND "${python}" -B "${frontend}/find_module.py" "${module}"
                  OUTPUT_VARIABLE found ERROR_VARIABLE errors RESULT_VARIABLE status
                  OUTPUT_STRIP_TRAILING_WHITESPACE)
  if(NOT status EQUAL 0)
    message(FATAL_ERROR "${context}: MODULE ${module}: ${found}${errors}")
  endif()
  set(${out_var} "${found}" PARENT_SCOPE)
endfunction()

# triton_add_library(<target> [STATIC | SHARED] KERNELS <name>... [ARCHITECTURES <arch>...]
#                    [PREFIX <c prefix>] [COMPRESS] [COMPRESS_LEVEL <n>] [NO_PTX])
# A remote cache URL given to CMake is written into CMakeCache.txt and build.ninja, and a command
# line is seen by every user of the machine: it may carry no credentials (docs/security.md). The
# variable is dropped from the cache before failing, so that the failed configure keeps nothing.
function(_triton_aot_check_remote_cache context)
  if(TRITON_AOT_REMOTE_CACHE MATCHES "^[A-Za-z][A-Za-z0-9+.-]*://[^@]*@")
    unset(TRITON_AOT_REMOTE_CACHE CACHE)
    message(FATAL_ERROR "${context}: TRITON_AOT_REMOTE_CACHE carries credentials (user "
                        "information before '@'), which CMake would write into CMakeCache.txt "
                        "and build.ninja; it was removed from the cache. Give CMake the URL "
                        "without them (redis://host:6379/0) and the build's environment the "
                        "password in a file (TRITON_AOT_REMOTE_CACHE_PASSWORD_FILE=<file>), or "
                        "leave the variable out and give the build's environment the whole URL "
                        "(TRITON_AOT_REMOTE_CACHE)")
  endif()
endfunction()

function(triton_add_library target)
  set(context "triton_add_library(${target})")
  _triton_aot_check_remote_cache("${context}")
  cmake_parse_arguments(PARSE_ARGV 1 arg "STATIC;SHARED;COMPRESS;NO_PTX"
                        "PREFIX;COMPRESS_LEVEL;TUNING_TABLE" "KERNELS;ARCHITECTURES")
  if(arg_UNPARSED_ARGUMENTS)
    list(GET arg_UNPARSED_ARGUMENTS 0 unknown)
    message(FATAL_ERROR "${context}: unknown keyword '${unknown}'; the keywords are STATIC, "
                        "SHARED, KERNELS, ARCHITECTURES, PREFIX, COMPRESS, COMPRESS_LEVEL, NO_PTX "
                        "and TUNING_TABLE")
  endif()
  foreach(keyword IN LISTS arg_KEYWORDS_MISSING_VALUES)
    message(FATAL_ERROR "${context}: ${keyword} needs a value")
  endforeach()
  if(arg_STATIC AND arg_SHARED)
    message(FATAL_ERROR "${context}: STATIC or SHARED, not both")
  endif()
  if(NOT arg_KERNELS)
    message(FATAL_ERROR "${context}: KERNELS is missing: name the triton_add_kernel() entry points")
  endif()
  set(keywords "the keywords are STATIC, SHARED, KERNELS, ARCHITECTURES, PREFIX, COMPRESS, COMPRESS_LEVEL, NO_PTX and TUNING_TABLE")
  # A misspelt keyword after a list keyword reads as one more value of that list.
  foreach(value IN LISTS arg_ARCHITECTURES)
    if(value MATCHES "^[A-Z][A-Z_]+$")
      message(FATAL_ERROR "${context}: unknown keyword '${value}'; ${keywords}")
    endif()
  endforeach()
  get_property(known GLOBAL PROPERTY TRITON_AOT_KERNELS)
  foreach(kernel IN LISTS arg_KERNELS)
    if(NOT kernel IN_LIST known AND kernel MATCHES "^[A-Z][A-Z_]+$")
      message(FATAL_ERROR "${context}: unknown keyword '${kernel}' (or a kernel that was not "
                          "declared); ${keywords}")
    elseif(NOT kernel IN_LIST known)
      list(JOIN known ", " known_text)
      message(FATAL_ERROR "${context}: no kernel '${kernel}' was declared with "
                          "triton_add_kernel() before this call (declared: ${known_text})")
    endif()
  endforeach()
  list(REMOVE_DUPLICATES arg_KERNELS)
  if(NOT arg_PREFIX)
    set(arg_PREFIX "${target}")
  endif()
  if(NOT arg_PREFIX MATCHES "^[A-Za-z_][A-Za-z0-9_]*$")
    message(FATAL_ERROR "${context}: the C prefix '${arg_PREFIX}' is not a C identifier; pass "
                        "PREFIX <identifier>")
  endif()
  if(NOT target MATCHES "^[A-Za-z0-9_.+-]+$")
    message(FATAL_ERROR "${context}: the target name also names the header <${target}.h>; use "
                        "letters, digits, '_', '.', '+' and '-'")
  endif()
  get_property(languages GLOBAL PROPERTY ENABLED_LANGUAGES)
  if(NOT "C" IN_LIST languages)
    message(FATAL_ERROR "${context}: the generated library is C: add C to the project's "
                        "languages, e.g. project(<name> LANGUAGES C CXX)")
  endif()
  if(DEFINED arg_ARCHITECTURES)
    set(architectures "${arg_ARCHITECTURES}")
  elseif(DEFINED CMAKE_TRITON_ARCHITECTURES)
    set(architectures "${CMAKE_TRITON_ARCHITECTURES}")
  else()
    message(FATAL_ERROR "${context}: no architectures: pass ARCHITECTURES or set "
                        "CMAKE_TRITON_ARCHITECTURES, e.g. -DCMAKE_TRITON_ARCHITECTURES=\"80;90a;gfx942\"")
  endif()
  _triton_aot_resolve_architectures(resolved error ${architectures})
  if(error)
    message(FATAL_ERROR "${context}: ARCHITECTURES: ${error}")
  endif()
  _triton_aot_python(python)  # fails now, at the call, when there is no usable Triton
  _triton_aot_prepare_workers("${python}" "${PROJECT_SOURCE_DIR}" ${resolved})

  set(kind STATIC)
  if(arg_SHARED)
    set(kind SHARED)
  endif()
  set(dir "${CMAKE_CURRENT_BINARY_DIR}/${target}.triton-aot")
  add_library(${target} ${kind})
  # <triton_aot/runtime.h> goes with the header: the generated .c includes it, and users of the
  # library get its fp16/bf16 helpers and full status API. The runtime's objects are compiled in:
  # with debug information where this project's build type has it (Debug, RelWithDebInfo).
  get_property(runtime_header GLOBAL PROPERTY TRITON_AOT_RUNTIME_HEADER)
  configure_file("${runtime_header}" "${dir}/triton_aot/runtime.h" COPYONLY)
  target_sources(${target}
    PRIVATE "${dir}/${target}.c" "${dir}/${target}.images.c"
            $<IF:$<CONFIG:Debug,RelWithDebInfo>,$<TARGET_OBJECTS:TritonAOT::runtime_objects_debug>,$<TARGET_OBJECTS:TritonAOT::runtime_objects>>
    PUBLIC FILE_SET HEADERS BASE_DIRS "${dir}"
           FILES "${dir}/${target}.h" "${dir}/triton_aot/runtime.h")
  if(NOT TARGET Threads::Threads)
    find_package(Threads REQUIRED)
  endif()
  target_link_libraries(${target} PRIVATE Threads::Threads ${CMAKE_DL_LIBS})
  set_target_properties(${target} PROPERTIES
    TRITON_ARCHITECTURES "${architectures}"
    TRITON_AOT_MANIFEST "${dir}/${target}.json"
    TRITON_AOT_KERNELS "${arg_KERNELS}"
    C_STANDARD 11
    C_VISIBILITY_PRESET hidden
    POSITION_INDEPENDENT_CODE ON)

  set(link_options "")
  # zstd's levels (ZSTD_maxCLevel(), which triton-aot-ld checks again): refused here, at the
  # call, rather than by the link at build time.
  if(DEFINED arg_COMPRESS_LEVEL AND NOT (arg_COMPRESS_LEVEL MATCHES "^[0-9]+$"
     AND arg_COMPRESS_LEVEL GREATER_EQUAL 1 AND arg_COMPRESS_LEVEL LESS_EQUAL 22))
    message(FATAL_ERROR "${context}: COMPRESS_LEVEL '${arg_COMPRESS_LEVEL}' is out of range: 1 "
                        "(fastest) to 22 (smallest); zstd's default is 3")
  endif()
  if(arg_COMPRESS OR arg_COMPRESS_LEVEL)
    list(APPEND link_options --compress)
    if(arg_COMPRESS_LEVEL)
      list(APPEND link_options --compress-level ${arg_COMPRESS_LEVEL})
    endif()
  endif()
  if(arg_NO_PTX)
    list(APPEND link_options --no-ptx)
  endif()
  set_property(TARGET ${target} PROPERTY _TRITON_AOT_LINK_OPTIONS "${link_options}")
  set_property(TARGET ${target} PROPERTY _TRITON_AOT_PREFIX "${arg_PREFIX}")
  # Sources are named relative to the project that declares the library (images' line
  # information, metadata, header comments): the same bytes whether the project is built alone
  # or inside a superbuild, from any checkout directory (docs/reproducible.md).
  set_property(TARGET ${target} PROPERTY _TRITON_AOT_SOURCE_ROOT "${PROJECT_SOURCE_DIR}")
  _triton_aot_reproducible_c(${target})
  _triton_aot_optimized(${target})
  # The tuning table lives in the source tree, to be committed (docs/tuning.md).
  if(NOT arg_TUNING_TABLE)
    set(arg_TUNING_TABLE "${target}.tuning.json")
  endif()
  cmake_path(ABSOLUTE_PATH arg_TUNING_TABLE BASE_DIRECTORY "${CMAKE_CURRENT_SOURCE_DIR}" NORMALIZE)
  set_property(TARGET ${target} PROPERTY TRITON_AOT_TUNING_TABLE "${arg_TUNING_TABLE}")
  # The build rules are made at the end of this directory, so that TRITON_ARCHITECTURES can
  # still be changed after this call, as CUDA_ARCHITECTURES can.
  cmake_language(EVAL CODE "cmake_language(DEFER CALL _triton_aot_add_build_rules [[${target}]])")
endfunction()

# The generated library's C compiled without the source and build directories in it (debug
# information's file and directory names, __FILE__), as -ffile-prefix-map does, where the
# compiler has it (GCC 8+, Clang 10+). Only on this target: the project's own code is its own.
# The generated code (a library's dispatcher, its operators' glue) is on every launch's path: a
# single-configuration build that names no build type would compile it with no -O at all
# (CMake's default), so it gets -O2 there. A build type, or the user's own flags, decide
# otherwise.
function(_triton_aot_optimized target)
  get_property(multi_config GLOBAL PROPERTY GENERATOR_IS_MULTI_CONFIG)
  if(NOT multi_config AND NOT CMAKE_BUILD_TYPE)
    target_compile_options(${target} PRIVATE -O2)
  endif()
endfunction()

function(_triton_aot_reproducible_c target)
  if(NOT DEFINED _TRITON_AOT_HAVE_FILE_PREFIX_MAP)
    include(CheckCCompilerFlag)
    check_c_compiler_flag("-ffile-prefix-map=/a=." _TRITON_AOT_HAVE_FILE_PREFIX_MAP)
  endif()
  if(_TRITON_AOT_HAVE_FILE_PREFIX_MAP)
    # GCC uses the last matching option: the build tree, often inside the source tree, wins.
    target_compile_options(${target} PRIVATE "-ffile-prefix-map=${CMAKE_SOURCE_DIR}=."
                                             "-ffile-prefix-map=${CMAKE_BINARY_DIR}=.")
  endif()
endfunction()

# The compile, link and embedding rules of a triton_add_library() target.
function(_triton_aot_add_build_rules target)
  get_target_property(architectures ${target} TRITON_ARCHITECTURES)
  get_target_property(kernels ${target} TRITON_AOT_KERNELS)
  get_target_property(link_options ${target} _TRITON_AOT_LINK_OPTIONS)
  get_target_property(prefix ${target} _TRITON_AOT_PREFIX)
  get_target_property(source_root ${target} _TRITON_AOT_SOURCE_ROOT)
  _triton_aot_resolve_architectures(resolved error ${architectures})
  if(error)
    message(FATAL_ERROR "triton_add_library(${target}): TRITON_ARCHITECTURES: ${error}")
  endif()
  _triton_aot_python(python)
  _triton_aot_compile_pool(pool_size)
  _triton_aot_cache_dir(cache_dir)
  # The shared cache (docs/remote-cache.md): TRITON_AOT_REMOTE_CACHE as a CMake variable
  # (without credentials: triton_add_library() checked), else the compiler reads the
  # environment when it runs, where credentials and the signing key belong.
  set(remote_options "")
  if(TRITON_AOT_REMOTE_CACHE)
    list(APPEND remote_options --remote-cache "${TRITON_AOT_REMOTE_CACHE}")
  endif()
  if(TRITON_AOT_REMOTE_CACHE_READ_ONLY)
    list(APPEND remote_options --remote-cache-read-only)
  endif()
  # Workers per compile: the CPUs the pool leaves each of this library's compiles.
  cmake_host_system_information(RESULT cpus QUERY NUMBER_OF_LOGICAL_CORES)
  list(LENGTH kernels kernel_count)
  list(LENGTH resolved target_count)
  math(EXPR commands "${kernel_count} * ${target_count}")
  if(commands GREATER pool_size)
    set(commands ${pool_size})
  endif()
  math(EXPR workers "(${cpus} + ${commands} - 1) / ${commands}")

  set(dir "${CMAKE_CURRENT_BINARY_DIR}/${target}.triton-aot")
  set(indexes "")
  foreach(kernel IN LISTS kernels)
    foreach(property SOURCE FUNCTION SIGNATURES GRID CONFIGS OPTIONS DECLARED_IN DECLARED_LINE)
      get_property(${property} GLOBAL PROPERTY TRITON_AOT_KERNEL_${kernel}_${property})
    endforeach()
    # Errors found only when compiling (a parameter count, a type) name the declaring call.
    cmake_path(RELATIVE_PATH DECLARED_IN BASE_DIRECTORY "${CMAKE_SOURCE_DIR}"
               OUTPUT_VARIABLE declared_at)
    if(DECLARED_LINE)
      string(APPEND declared_at ":${DECLARED_LINE}")
    endif()
    set(variant_args --declared-at "${declared_at} (triton_add_kernel(${kernel}))")
    foreach(signature IN LISTS SIGNATURES)
      list(APPEND variant_args -s "${signature}")
    endforeach()
    foreach(config IN LISTS CONFIGS)
      list(APPEND variant_args --config "${config}")
    endforeach()
    if(NOT GRID STREQUAL "")
      list(APPEND variant_args -g "${GRID}")
    endif()
    list(LENGTH SIGNATURES signature_count)
    list(LENGTH CONFIGS config_count)
    set(kernel_workers ${workers})
    if(config_count EQUAL 0)
      # Without CONFIG: one default config, or a @triton.autotune'd kernel's, known only when
      # it compiles.
      set(variant_count "${signature_count} x its configs")
    else()
      math(EXPR variant_count "${signature_count} * ${config_count}")
      if(kernel_workers GREATER variant_count)
        set(kernel_workers ${variant_count})
      endif()
    endif()
    cmake_path(RELATIVE_PATH SOURCE BASE_DIRECTORY "${CMAKE_SOURCE_DIR}" OUTPUT_VARIABLE shown_source)
    foreach(entry IN LISTS resolved)
      string(REPLACE "|" ";" entry "${entry}")
      list(GET entry 0 compile_target)
      list(GET entry 1 tag)
      list(GET entry 2 ptx)
      set(ptx_option "")
      if(NOT ptx)
        set(ptx_option --no-ptx)
      endif()
      set(out "${dir}/compile/${kernel}.${tag}")
      add_custom_command(
        OUTPUT "${out}/index.json"
        COMMAND TritonAOT::triton-aot-cc "${SOURCE}" -n "${FUNCTION}" -on "${kernel}"
                ${variant_args} -t "${compile_target}" -o "${out}/"
                --index "${out}/index.json" --depfile "${out}/index.d"
                --python "${python}" --cache-dir "${cache_dir}" -j ${kernel_workers}
                --source-root "${source_root}" ${remote_options}
                ${ptx_option} ${OPTIONS}
        DEPENDS "${SOURCE}" TritonAOT::triton-aot-cc
        DEPFILE "${out}/index.d"
        JOB_POOL triton_aot_compile
        COMMENT "Triton kernel ${kernel} (${shown_source}) for ${tag}: ${variant_count} variant(s)"
        VERBATIM)
      list(APPEND indexes "${out}/index.json")
    endforeach()
  endforeach()

  _triton_aot_add_tuning(${target} "${dir}" "${prefix}" "${kernels}" link_options tuning_depends)
  set(outputs "${dir}/${target}.h" "${dir}/${target}.c" "${dir}/${target}.images.S"
              "${dir}/${target}.images" "${dir}/${target}.json")
  add_custom_command(
    OUTPUT ${outputs}
    COMMAND TritonAOT::triton-aot-ld --name "${target}" --prefix "${prefix}" -o "${dir}"
            ${link_options} ${indexes}
    DEPENDS ${indexes} TritonAOT::triton-aot-ld ${tuning_depends}
    COMMENT "Linking Triton kernel library ${target} (${kernel_count} kernel(s), ${target_count} architecture(s))"
    VERBATIM)
  # The images are pulled in by .incbin from the assembler file the linker wrote; a C file that
  # includes it needs no ASM language in the project. .incbin is invisible to dependency
  # scanning, so the blob is named explicitly.
  file(CONFIGURE OUTPUT "${dir}/${target}.images.c" CONTENT
    "/* Embeds ${target}.images (generated by triton_add_library; do not edit). */\n__asm__(\".include \\\"${dir}/${target}.images.S\\\"\");\n")
  set_source_files_properties("${dir}/${target}.images.c" PROPERTIES
    OBJECT_DEPENDS "${dir}/${target}.images.S;${dir}/${target}.images")
endfunction()

# Tuning of a triton_add_library() target (docs/tuning.md): its table, when it exists, goes to
# the link (--tuning; appended to <link_options_var>, the table to <depends_var>); a missing one
# is picked up when it appears (its directory is a configure dependency). When a kernel has
# TUNE_* values: the spec <dir>/<target>.tune.json, a module of the library to time, and the
# targets <target>_tune and `tune` (never part of the default build), which run triton-aot-tune
# on this machine's GPU and write the table.
function(_triton_aot_add_tuning target dir prefix kernels link_options_var depends_var)
  get_target_property(table ${target} TRITON_AOT_TUNING_TABLE)
  set(depends "")
  if(EXISTS "${table}")
    list(APPEND ${link_options_var} --tuning "${table}")
    set(depends "${table}")
  else()
    cmake_path(GET table PARENT_PATH table_dir)
    set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS "${table_dir}")
  endif()
  set(${link_options_var} "${${link_options_var}}" PARENT_SCOPE)
  set(${depends_var} "${depends}" PARENT_SCOPE)

  set(spec "{\"schema\": \"triton-aot-tuning-spec\", \"version\": 1, \"kernels\": []}")
  set(index 0)
  foreach(kernel IN LISTS kernels)
    foreach(property TUNE_KEY TUNE_SHAPES TUNE_ARGS TUNE_GRID)
      get_property(${property} GLOBAL PROPERTY TRITON_AOT_KERNEL_${kernel}_${property})
    endforeach()
    if(NOT TUNE_KEY)
      continue()
    endif()
    list(JOIN TUNE_KEY "\", \"" key)
    set(shapes "")
    foreach(shape IN LISTS TUNE_SHAPES)
      list(APPEND shapes "[${shape}]")
    endforeach()
    list(JOIN shapes ", " shapes)
    set(entry "{\"kernel\": \"${kernel}\", \"key\": [\"${key}\"], \"shapes\": [${shapes}], \"args\": {}}")
    foreach(arg IN LISTS TUNE_ARGS)
      string(FIND "${arg}" "=" equals)
      string(SUBSTRING "${arg}" 0 ${equals} name)
      math(EXPR equals "${equals} + 1")
      string(SUBSTRING "${arg}" ${equals} -1 expression)
      string(STRIP "${expression}" expression)
      string(REPLACE "\\" "\\\\" expression "${expression}")
      string(REPLACE "\"" "\\\"" expression "${expression}")
      string(JSON entry SET "${entry}" args "${name}" "\"${expression}\"")
    endforeach()
    if(TUNE_GRID)
      list(JOIN TUNE_GRID "\", \"" grid)
      string(JSON entry SET "${entry}" grid "[\"${grid}\"]")
    endif()
    string(JSON spec SET "${spec}" kernels ${index} "${entry}")
    math(EXPR index "${index} + 1")
  endforeach()
  if(index EQUAL 0)
    return()
  endif()
  file(CONFIGURE OUTPUT "${dir}/${target}.tune.json" CONTENT "${spec}\n" @ONLY)

  # The tuner dlopens a shared object: a module of the same sources, built only for tuning.
  get_target_property(sources ${target} SOURCES)
  add_library(${target}_tuning_module MODULE EXCLUDE_FROM_ALL ${sources})
  target_include_directories(${target}_tuning_module PRIVATE "${dir}")
  target_link_libraries(${target}_tuning_module PRIVATE Threads::Threads ${CMAKE_DL_LIBS})
  set_target_properties(${target}_tuning_module PROPERTIES C_STANDARD 11
    C_VISIBILITY_PRESET hidden POSITION_INDEPENDENT_CODE ON)
  if(TARGET TritonAOT::triton-aot-tune)
    set(command TritonAOT::triton-aot-tune --library $<TARGET_FILE:${target}_tuning_module>
                --prefix "${prefix}" --spec "${dir}/${target}.tune.json" --output "${table}")
  else()
    set(command "${CMAKE_COMMAND}" -E echo
                "${target}_tune: this TritonAOT has no triton-aot-tune" COMMAND false)
  endif()
  add_custom_target(${target}_tune
    COMMAND ${command}
    DEPENDS ${target}_tuning_module
    COMMENT "Tuning ${target} on this machine's GPU into ${table}"
    USES_TERMINAL VERBATIM)
  if(NOT TARGET tune)
    add_custom_target(tune)
  endif()
  add_dependencies(tune ${target}_tune)
endfunction()

# The compile cache: TRITON_AOT_CACHE_DIR (CMake, then environment), else in the build tree.
function(_triton_aot_cache_dir out_var)
  if(DEFINED TRITON_AOT_CACHE_DIR)
    set(${out_var} "${TRITON_AOT_CACHE_DIR}" PARENT_SCOPE)
  elseif(DEFINED ENV{TRITON_AOT_CACHE_DIR})
    set(${out_var} "$ENV{TRITON_AOT_CACHE_DIR}" PARENT_SCOPE)
  else()
    set(${out_var} "${CMAKE_BINARY_DIR}/triton-aot-cache" PARENT_SCOPE)
  endif()
endfunction()

# _triton_aot_prepare_workers(<python> <source root> <resolved architecture>...): the project's
# worker pool holds warm workers before the first build (triton-aot-cc --prepare-workers, which
# returns at once, the installation learned in the background): the build's compiles then lease
# workers that imported Triton and compiled for their targets already
# (docs/cmake.md#warm-workers-before-the-first-build). At the first triton_add_library() of an
# interpreter and project, so that the rest of the configure gives them time; its architectures
# as they are then (a later change costs only that target's warm-up). One per CPU, as many as
# the build's compiles use at once. TRITON_AOT_PREPARE_WORKERS=OFF leaves the workers to the
# build. A toolchain built by this very project is not there yet: nothing then.
function(_triton_aot_prepare_workers python source_root)
  if(NOT DEFINED TRITON_AOT_PREPARE_WORKERS)
    set(TRITON_AOT_PREPARE_WORKERS ON CACHE BOOL
        "Start warm Triton compile workers at configure time, for the first build")
  endif()
  get_property(prepared GLOBAL PROPERTY _TRITON_AOT_PREPARED_POOLS)
  set(pool "${python}|${source_root}")
  if(NOT TRITON_AOT_PREPARE_WORKERS OR pool IN_LIST prepared)
    return()
  endif()
  set_property(GLOBAL APPEND PROPERTY _TRITON_AOT_PREPARED_POOLS "${pool}")
  get_target_property(imported TritonAOT::triton-aot-cc IMPORTED)
  if(NOT imported)
    return()
  endif()
  get_target_property(compiler TritonAOT::triton-aot-cc LOCATION)
  if(NOT compiler OR NOT EXISTS "${compiler}")
    return()
  endif()
  set(target_options "")
  foreach(entry IN LISTS ARGN)
    string(REPLACE "|" ";" entry "${entry}")
    list(GET entry 0 target)
    list(APPEND target_options -t "${target}")
  endforeach()
  _triton_aot_cache_dir(cache_dir)
  cmake_host_system_information(RESULT workers QUERY NUMBER_OF_LOGICAL_CORES)
  execute_process(COMMAND "${compiler}" --prepare-workers --source-root "${source_root}"
                          --python "${python}" --cache-dir "${cache_dir}" -j ${workers}
                          ${target_options}
                  RESULT_VARIABLE status OUTPUT_QUIET ERROR_VARIABLE errors TIMEOUT 30)
  if(NOT status EQUAL 0)
    # It costs the first build its warm start, nothing else.
    string(STRIP "${errors}" errors)
    message(STATUS "triton-aot: no workers prepared for the first build: ${errors}")
  endif()
endfunction()

# The Ninja job pool that bounds concurrent compiles: TRITON_AOT_COMPILE_JOBS, default one per
# CPU and at most one per 1.5 GiB of available memory (a Triton compile can take about that).
function(_triton_aot_compile_pool out_size)
  if(NOT DEFINED TRITON_AOT_COMPILE_JOBS)
    cmake_host_system_information(RESULT cpus QUERY NUMBER_OF_LOGICAL_CORES)
    cmake_host_system_information(RESULT free_mib QUERY AVAILABLE_PHYSICAL_MEMORY)
    math(EXPR jobs "${free_mib} / 1536")
    if(jobs GREATER cpus)
      set(jobs ${cpus})
    endif()
    if(jobs LESS 1)
      set(jobs 1)
    endif()
    set(TRITON_AOT_COMPILE_JOBS ${jobs} CACHE STRING "Concurrent Triton compiles (Ninja job pool triton_aot_compile)")
  endif()
  get_property(pools GLOBAL PROPERTY JOB_POOLS)
  if(NOT pools MATCHES "(^|;)triton_aot_compile=")
    set_property(GLOBAL APPEND PROPERTY JOB_POOLS triton_aot_compile=${TRITON_AOT_COMPILE_JOBS})
  endif()
  set(${out_size} ${TRITON_AOT_COMPILE_JOBS} PARENT_SCOPE)
endfunction()

# The manifest of <target>, a triton_add_library() target (<label> in messages), into
# <out_var>; a configure error naming the fix when <target> is none.
function(_triton_aot_library_manifest context label target out_var)
  if(NOT TARGET ${target})
    message(FATAL_ERROR "${context}: ${label} is not a target; declare it with "
                        "triton_add_library() first")
  endif()
  get_target_property(manifest ${target} TRITON_AOT_MANIFEST)
  if(NOT manifest)
    message(FATAL_ERROR "${context}: ${label} is not a triton_add_library() target")
  endif()
  set(${out_var} "${manifest}" PARENT_SCOPE)
endfunction()

# triton_install_library(<target> [PACKAGE <Name>] [NAMESPACE <ns>::] [VERSION <x.y.z>]
#                        [DESTINATION <dir>] [COMPONENT <component>])
function(triton_install_library target)
  set(context "triton_install_library(${target})")
  cmake_parse_arguments(PARSE_ARGV 1 arg "" "PACKAGE;NAMESPACE;VERSION;DESTINATION;COMPONENT" "")
  if(arg_UNPARSED_ARGUMENTS)
    list(GET arg_UNPARSED_ARGUMENTS 0 unknown)
    message(FATAL_ERROR "${context}: unknown keyword '${unknown}'; the keywords are PACKAGE, "
                        "NAMESPACE, VERSION, DESTINATION and COMPONENT")
  endif()
  _triton_aot_library_manifest("${context}" "'${target}'" ${target} manifest)
  include(GNUInstallDirs)
  include(CMakePackageConfigHelpers)
  if(NOT arg_PACKAGE)
    set(arg_PACKAGE "${target}")
  endif()
  if(NOT arg_NAMESPACE)
    set(arg_NAMESPACE "${arg_PACKAGE}::")
  endif()
  if(NOT arg_VERSION)
    set(arg_VERSION "${PROJECT_VERSION}")
  endif()
  if(NOT arg_VERSION)
    set(arg_VERSION 0.0.0)
  endif()
  if(NOT arg_DESTINATION)
    set(arg_DESTINATION "${CMAKE_INSTALL_LIBDIR}/cmake/${arg_PACKAGE}")
  endif()
  set(component "")
  if(arg_COMPONENT)
    set(component COMPONENT "${arg_COMPONENT}")
  endif()

  install(TARGETS ${target} EXPORT ${arg_PACKAGE}Targets
    ARCHIVE DESTINATION "${CMAKE_INSTALL_LIBDIR}" ${component}
    LIBRARY DESTINATION "${CMAKE_INSTALL_LIBDIR}" ${component}
    RUNTIME DESTINATION "${CMAKE_INSTALL_BINDIR}" ${component}
    FILE_SET HEADERS DESTINATION "${CMAKE_INSTALL_INCLUDEDIR}" ${component})
  install(EXPORT ${arg_PACKAGE}Targets NAMESPACE "${arg_NAMESPACE}"
          DESTINATION "${arg_DESTINATION}" ${component})
  install(FILES "${manifest}" DESTINATION "${CMAKE_INSTALL_DATADIR}/${arg_PACKAGE}" ${component})

  set(config_dir "${CMAKE_CURRENT_BINARY_DIR}/${target}.triton-aot/package")
  set(TRITON_AOT_PACKAGE "${arg_PACKAGE}")
  set(TRITON_AOT_PACKAGE_TARGET "${arg_NAMESPACE}${target}")
  configure_package_config_file(
    "${CMAKE_CURRENT_FUNCTION_LIST_DIR}/TritonAOTLibraryConfig.cmake.in"
    "${config_dir}/${arg_PACKAGE}Config.cmake"
    INSTALL_DESTINATION "${arg_DESTINATION}")
  write_basic_package_version_file("${config_dir}/${arg_PACKAGE}ConfigVersion.cmake"
    VERSION "${arg_VERSION}" COMPATIBILITY SameMajorVersion)
  install(FILES "${config_dir}/${arg_PACKAGE}Config.cmake"
                "${config_dir}/${arg_PACKAGE}ConfigVersion.cmake"
          DESTINATION "${arg_DESTINATION}" ${component})
endfunction()
