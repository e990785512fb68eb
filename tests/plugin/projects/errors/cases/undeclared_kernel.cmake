# expect: triton_add_library\(lib\): no kernel 'softmax' was declared with triton_add_kernel\(\)
# expect: before this call \(declared: add\)
triton_add_kernel(add SOURCE ${KERNELS}/add.py FUNCTION add_kernel
  SIGNATURE "*fp32, *fp32, *fp32, i32, 1024" GRID "cdiv(n_elements, 1024)")
triton_add_library(lib KERNELS add softmax ARCHITECTURES 80)  # <- error
