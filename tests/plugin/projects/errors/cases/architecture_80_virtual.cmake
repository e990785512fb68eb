# expect: triton_add_library\(lib\): ARCHITECTURES: '80-virtual': Triton always builds a cubin,
# expect: there is no PTX-only target
triton_add_kernel(add SOURCE ${KERNELS}/add.py FUNCTION add_kernel
  SIGNATURE "*fp32, *fp32, *fp32, i32, 1024" GRID "cdiv(n_elements, 1024)")
triton_add_library(lib KERNELS add ARCHITECTURES 80 80-virtual)  # <- error
