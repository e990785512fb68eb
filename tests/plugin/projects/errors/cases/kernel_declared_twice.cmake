# expect: triton_add_kernel\(add\): a kernel named 'add' is already declared
triton_add_kernel(add SOURCE ${KERNELS}/add.py FUNCTION add_kernel
  SIGNATURE "*fp32, *fp32, *fp32, i32, 1024" GRID "cdiv(n_elements, 1024)")
triton_add_kernel(add SOURCE ${KERNELS}/scale_shift.py FUNCTION scale_shift_kernel  # <- error
  SIGNATURE "*fp32, *fp32, fp32, fp16, i64, i1, 512" GRID "cdiv(n_elements, 512)")
