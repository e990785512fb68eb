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

# _triton_aot_check_signature_types(<context> <signature>): fails, at the call's line, for an
# entry whose type is misspelt ("fp33", "*flaot"), as triton-aot-cc would at build time, with
# the same "did you mean". An entry that is a name or a value is left to the compiler.
function(_triton_aot_check_signature_types context signature)
  # The grammar's scalar types and the compiler's aliases of them (contract/types.cpp and
  # compiler/signature.cpp; the unit test CMakeSignatureTypes.AreTheCompilers keeps them equal).
  set(types i1 i8 i16 i32 i64 u1 u8 u16 u32 u64 fp16 bf16 fp32 fp64
            fp8e4nv fp8e5 fp8e4b15 fp8e4b8 fp8e5b16 f32)
  set(aliases bool=i1 int1=i1 uint1=u1 int8=i8 int16=i16 int=i32 int32=i32 int64=i64 uint8=u8
              uint16=u16 uint32=u32 uint64=u64 half=fp16 float16=fp16 bfloat16=bf16 float=fp32
              float32=fp32 double=fp64 float64=fp64 float8e4nv=fp8e4nv float8e5=fp8e5
              float8e4b15=fp8e4b15 float8e4b8=fp8e4b8 float8e5b16=fp8e5b16
              float8_e4m3fn=fp8e4nv float8_e5m2=fp8e5 float8_e4m3fnuz=fp8e4b8
              float8_e5m2fnuz=fp8e5b16 f16=fp16 f64=fp64)
  _triton_aot_top_level("${signature}" flat)
  string(REPLACE ";" "," flat "${flat}")
  string(REPLACE "," ";" entries "${flat}")
  set(number 0)
  foreach(entry IN LISTS entries)
    math(EXPR number "${number} + 1")
    string(STRIP "${entry}" entry)
    string(REGEX REPLACE "^[A-Za-z_][A-Za-z0-9_]*[ \t]*=([^=]|$)" "\\1" entry "${entry}")
    string(STRIP "${entry}" entry)
    set(pointer FALSE)
    if(entry MATCHES "^\\*[ \t]*(.*)$")
      set(pointer TRUE)
      set(entry "${CMAKE_MATCH_1}")
    endif()
    if(NOT entry MATCHES "^([A-Za-z_][A-Za-z0-9_]*)[ \t]*(.*)$")
      continue()
    endif()
    set(token "${CMAKE_MATCH_1}")
    set(rest "${CMAKE_MATCH_2}")
    if(token IN_LIST types)
      continue()
    endif()
    set(guess "")
    foreach(alias IN LISTS aliases)
      if(alias MATCHES "^${token}=(.*)$")
        set(guess "${CMAKE_MATCH_1}")
      endif()
    endforeach()
    if(NOT pointer AND NOT guess AND NOT rest MATCHES "^:"
       AND NOT token MATCHES "^(i|u|f|fp|bf)[0-9]")
      continue()   # a constexpr name (BLOCK) or a value
    endif()
    if(NOT guess)   # the known type sharing the longest prefix with it
      set(best 0)
      foreach(type IN LISTS types)
        string(LENGTH "${type}" length)
        set(shared 0)
        foreach(n RANGE 1 ${length})
          string(SUBSTRING "${type}" 0 ${n} head)
          string(SUBSTRING "${token}" 0 ${n} mine)
          if(head STREQUAL mine)
            set(shared ${n})
          endif()
        endforeach()
        if(shared GREATER best)
          set(best ${shared})
          set(guess "${type}")
        endif()
      endforeach()
    endif()
    set(hint "")
    if(guess)
      set(hint "; did you mean '${guess}'?")
    endif()
    message(FATAL_ERROR "${context}: SIGNATURE \"${signature}\": entry ${number}: unknown type "
                        "'${token}'${hint}")
  endforeach()
endfunction()
