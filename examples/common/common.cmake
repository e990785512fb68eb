# The code the example programs share (examples/common), as the target examples_common.
# Included by each example project; it needs no GPU toolkit, only dlopen.
include_guard(DIRECTORY)

add_library(examples_common STATIC "${CMAKE_CURRENT_LIST_DIR}/device.cpp")
target_include_directories(examples_common PUBLIC "${CMAKE_CURRENT_LIST_DIR}")
target_compile_features(examples_common PUBLIC cxx_std_17)
target_link_libraries(examples_common PUBLIC ${CMAKE_DL_LIBS})
if(CMAKE_CXX_COMPILER_ID MATCHES "GNU|Clang")
  target_compile_options(examples_common PRIVATE -Wall -Wextra)
endif()
