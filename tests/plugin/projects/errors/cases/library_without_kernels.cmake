# expect: triton_add_library\(lib\): KERNELS is missing
triton_add_library(lib ARCHITECTURES 80)  # <- error
