# expect: triton_add_library\(lib\): ARCHITECTURES: unknown architecture 'gfx1234': Triton builds
# expect: the AMD processors gfx908
triton_add_kernel(add SOURCE ${KERNELS}/add.py FUNCTION add_kernel
  SIGNATURE "*fp32, *fp32, *fp32, i32, 1024" GRID "cdiv(n_elements, 1024)")
triton_add_library(lib KERNELS add ARCHITECTURES 80 gfx1234)  # <- error
