# Configure-time checks of triton_add_kernel() arguments. triton-aot-cc checks everything again
# at build time; these catch, at the line of the call, what a CMake user gets wrong most often.
include_guard(GLOBAL)

# <text> with every (...) group, innermost first, and every quoted string blanked, so that the
# commas left are the ones that separate entries.
function(_triton_aot_top_level text out_var)
  string(REGEX REPLACE "'[^']*'|\"[^\"]*\"" "0" text "${text}")
  set(previous "")
  while(NOT text STREQUAL previous)
    set(previous "${text}")
    string(REGEX REPLACE "\\([^()]*\\)" "_" text "${text}")
  endwhile()
  set(${out_var} "${text}" PARENT_SCOPE)
endfunction()

# _triton_aot_grid(<context> <out> <expr>...): "x, y, z" from one to three GRID arguments, the
# missing dimensions 1.
function(_triton_aot_grid context out_var)
  set(expressions "")
  foreach(argument IN LISTS ARGN)
    _triton_aot_top_level("${argument}" flat)
    string(REGEX MATCHALL "," commas "${flat}")
    list(LENGTH commas count)
    math(EXPR count "${count} + 1")
    list(APPEND expressions "${argument}")
    list(APPEND counts ${count})
  endforeach()
  set(total 0)
  foreach(count IN LISTS counts)
    math(EXPR total "${total} + ${count}")
  endforeach()
  if(total GREATER 3)
    message(FATAL_ERROR "${context}: GRID has ${total} expressions; it takes one to three "
                        "(x, y, z), e.g. GRID \"cdiv(n, BLOCK)\" 1 1")
  endif()
  list(JOIN expressions ", " grid)
  if(total EQUAL 1)
    string(APPEND grid ", 1, 1")
  elseif(total EQUAL 2)
    string(APPEND grid ", 1")
  endif()
  set(${out_var} "${grid}" PARENT_SCOPE)
endfunction()

# Fails unless <file> defines `def <function>(`; lists the @jit functions it has otherwise.
function(_triton_aot_check_function context file function)
  # A def, or an assignment (unsloth: "name = triton.heuristics(...)(triton.jit(f))").
  file(STRINGS "${file}" found REGEX "^([ \t]*def[ \t]+${function}[ \t]*\\(|${function}[ \t]*=[^=])")
  if(found)
    return()
  endif()
  file(READ "${file}" text)
  string(REGEX MATCHALL "@[A-Za-z_.]*jit[^\n]*\n([ \t]*@[^\n]*\n)*[ \t]*def[ \t]+[A-Za-z_][A-Za-z0-9_]*"
         jitted "${text}")
  set(names "")
  foreach(match IN LISTS jitted)
    string(REGEX MATCH "def[ \t]+([A-Za-z_][A-Za-z0-9_]*)$" _ "${match}")
    list(APPEND names "${CMAKE_MATCH_1}")
  endforeach()
  if(names)
    list(JOIN names ", " names)
    set(names " (its @jit functions: ${names})")
  endif()
  message(FATAL_ERROR "${context}: no function '${function}' in ${file}${names}; set FUNCTION "
                      "to the @triton.jit function's name")
endfunction()
