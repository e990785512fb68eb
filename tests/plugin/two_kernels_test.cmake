# The two_kernels project (two kernels in two files, one library, one C program) in
# ${PLUGIN_WORK}: STEP=clean_build configures and builds a copy of it from scratch with the
# installed toolchain for 80;90a;gfx942; STEP=noop_build checks that a second build runs
# nothing; STEP=touch_one_kernel touches one kernel file, STEP=touch_imported_module the module
# the other kernel imports, and each checks that exactly that kernel's compiles (one per
# architecture), the link and the C build of the generated sources re-run.
include(${CMAKE_CURRENT_LIST_DIR}/plugin_common.cmake)

set(source "${PLUGIN_WORK}/src")
set(build "${PLUGIN_WORK}/build")
set(generated "${build}/two_kernels.triton-aot")
set(tags sm80 sm90a gfx942)

# The compile steps' index files, one per kernel and architecture.
function(index_files out kernel)
  set(files "")
  foreach(tag IN LISTS tags)
    list(APPEND files "${generated}/compile/${kernel}.${tag}/index.json")
  endforeach()
  set(${out} "${files}" PARENT_SCOPE)
endfunction()

# Fails unless a build of the tree runs nothing.
function(expect_no_work when)
  plugin_run(COMMAND "${CMAKE_COMMAND}" --build "${build}" OUTPUT out)
  plugin_expect("${out}" "ninja: no work to do\\." "a build ${when}")
  plugin_run(COMMAND "${PLUGIN_NINJA}" -C "${build}" -n -d explain OUTPUT out)
  if(out MATCHES "ninja explain:")
    message(FATAL_ERROR "a build ${when} would re-run something:\n${out}")
  endif()
endfunction()

# Touches <file> (of the source copy), or with EDIT makes a change to <kernel>'s code, rebuilds,
# and checks from Ninja's command lines and the compiles' outputs that exactly the compiles of
# <kernel> (one per architecture) and the link ran, and not the compiles of <other>. After a
# touch the library comes out the same, so the linker keeps its files and nothing after it
# runs; after an edit the embedded images, the archive and the program are rebuilt, but not the
# program's own source (the header is the same).
function(touch_and_check file kernel other)
  set(edit "${ARGN}")
  expect_no_work("before touching ${file}")
  index_files(touched ${kernel})
  index_files(untouched ${other})
  foreach(index IN LISTS touched untouched)
    plugin_mtime(before_${index} "${index}")
  endforeach()

  if(edit)
    file(READ "${source}/${file}" text)
    string(REPLACE "x + y," "x + y + 0.0," edited "${text}")   # an extra add: new images
    if(edited STREQUAL text)
      message(FATAL_ERROR "the edit did not apply to ${file}")
    endif()
    file(WRITE "${source}/${file}" "${edited}")
  else()
    file(TOUCH "${source}/${file}")
  endif()
  plugin_run(COMMAND "${PLUGIN_NINJA}" -C "${build}" -v -d explain OUTPUT out)
  message(STATUS "rebuild after touching ${file}:\n${out}")
  plugin_lines(lines "${out}")

  # Every command that ran (Ninja -v prints "[n/N] <command>") must be one of these.
  set(compile_touched "triton-aot-cc[^ ]* [^ ]*/kernels/${kernel}\\.py ")
  set(compile_other "triton-aot-cc")
  set(link "triton-aot-ld")
  set(generated_c " -c [^ ]*/two_kernels\\.triton-aot/two_kernels(\\.images)?\\.c$")
  set(program_c " -c [^ ]*/main\\.c$")
  set(archive "ar [^ ]* *libtwo_kernels\\.a ")
  set(program_link " -o two_kernels_program ")
  set(kinds compile_touched compile_other link generated_c program_c archive program_link)
  foreach(kind IN LISTS kinds)
    set(${kind}_count 0)
  endforeach()
  foreach(line IN LISTS lines)
    if(NOT line MATCHES "^<[0-9]+/[0-9]+> ")
      continue()
    endif()
    set(kind "")
    foreach(candidate IN LISTS kinds)
      if(line MATCHES "${${candidate}}")
        set(kind ${candidate})
        break()
      endif()
    endforeach()
    if(NOT kind)
      message(FATAL_ERROR "touching ${file} re-ran an unrelated command:\n${line}\n\n${out}")
    endif()
    math(EXPR ${kind}_count "${${kind}_count} + 1")
  endforeach()
  if(NOT compile_touched_count EQUAL 3)
    message(FATAL_ERROR "expected the 3 compiles of ${kernel} (sm80, sm90a, gfx942) to re-run "
                        "after touching ${file}, got ${compile_touched_count}:\n${out}")
  endif()
  if(NOT compile_other_count EQUAL 0)
    message(FATAL_ERROR "the compiles of ${other} re-ran after touching ${file}:\n${out}")
  endif()
  if(NOT link_count EQUAL 1)
    message(FATAL_ERROR "expected the link to re-run once, it ran ${link_count} times:\n${out}")
  endif()
  if(edit AND (generated_c_count LESS 1 OR NOT archive_count EQUAL 1
               OR NOT program_link_count EQUAL 1 OR NOT program_c_count EQUAL 0))
    message(FATAL_ERROR "after editing ${file}: expected the generated C (${generated_c_count}), "
                        "the archive (${archive_count}) and the program's link "
                        "(${program_link_count}) to re-run, not main.c (${program_c_count}):\n${out}")
  elseif(NOT edit AND NOT (generated_c_count EQUAL 0 AND archive_count EQUAL 0
                           AND program_c_count EQUAL 0 AND program_link_count EQUAL 0))
    message(FATAL_ERROR "touching ${file} left the library the same, yet something after the "
                        "link re-ran:\n${out}")
  endif()
  if(out MATCHES "Re-running CMake")
    message(FATAL_ERROR "touching ${file} re-ran CMake:\n${out}")
  endif()

  foreach(index IN LISTS touched)
    plugin_mtime(after "${index}")
    if(after STREQUAL before_${index})
      message(FATAL_ERROR "${index} was not rewritten after touching ${file}")
    endif()
  endforeach()
  foreach(index IN LISTS untouched)
    plugin_mtime(after "${index}")
    if(NOT after STREQUAL before_${index})
      message(FATAL_ERROR "${index} was rewritten after touching ${file}")
    endif()
  endforeach()
  expect_no_work("after the rebuild")
endfunction()

if(STEP STREQUAL "clean_build")
  file(REMOVE_RECURSE "${PLUGIN_WORK}")
  file(COPY "${PLUGIN_PROJECTS}/two_kernels/" DESTINATION "${source}")
  # The compile cache stays the build tree's own (the default): this build is from scratch.
  # A list on the command line would be split by execute_process: a cache script sets it.
  file(WRITE "${PLUGIN_WORK}/architectures.cmake"
       "set(CMAKE_TRITON_ARCHITECTURES \"80;90a;gfx942\" CACHE STRING \"\")\n")
  plugin_configure("${source}" "${build}" "-DCMAKE_PREFIX_PATH=${PLUGIN_TOOLCHAIN}"
                   -C "${PLUGIN_WORK}/architectures.cmake")
  plugin_run(COMMAND "${CMAKE_COMMAND}" --build "${build}" OUTPUT out)
  message(STATUS "clean build:\n${out}")

  foreach(kernel add scale_shift)
    index_files(files ${kernel})
    foreach(file IN LISTS files)
      if(NOT EXISTS "${file}")
        message(FATAL_ERROR "no ${file} after the build")
      endif()
    endforeach()
  endforeach()
  # Ninja's progress: one readable line per compile, naming the kernel file.
  plugin_lines(lines "${out}")
  foreach(kernel add scale_shift)
    plugin_count(count "^<[0-9]+/[0-9]+> [^\n]*kernels/${kernel}\\.py" ${lines})
    if(NOT count EQUAL 3)
      message(FATAL_ERROR "expected 3 progress lines naming kernels/${kernel}.py, got ${count}")
    endif()
  endforeach()
  foreach(line IN LISTS lines)
    string(LENGTH "${line}" length)
    if(line MATCHES "kernels/(add|scale_shift)\\.py" AND length GREATER 160)
      message(FATAL_ERROR "a compile's progress line is not one readable line: ${line}")
    endif()
  endforeach()
  foreach(file "${generated}/two_kernels.h" "${generated}/two_kernels.json"
               "${build}/libtwo_kernels.a" "${build}/two_kernels_program")
    if(NOT EXISTS "${file}")
      message(FATAL_ERROR "no ${file} after the build")
    endif()
  endforeach()

  # No GPU is visible to it: both entry points fail cleanly; the inventory lists all targets.
  set(ENV{CUDA_VISIBLE_DEVICES} -1)
  set(ENV{HIP_VISIBLE_DEVICES} -1)
  plugin_run(COMMAND "${build}/two_kernels_program" OUTPUT out)
  message(STATUS "two_kernels_program:\n${out}")
  plugin_expect("${out}" "no GPU \\(" "the program without a GPU")
  foreach(needle "2 kernels" "cuda:80 " "cuda:90a " "hip:gfx942 " "scale_shift ")
    plugin_expect("${out}" "${needle}" "the program's inventory")
  endforeach()

elseif(STEP STREQUAL "noop_build")
  expect_no_work("right after a build")

elseif(STEP STREQUAL "touch_one_kernel")
  touch_and_check(kernels/add.py add scale_shift)

elseif(STEP STREQUAL "touch_imported_module")
  touch_and_check(kernels/arith.py scale_shift add)

elseif(STEP STREQUAL "edit_one_kernel")
  touch_and_check(kernels/add.py add scale_shift EDIT)

else()
  message(FATAL_ERROR "unknown STEP '${STEP}'")
endif()
