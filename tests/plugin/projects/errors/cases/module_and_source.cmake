# expect: triton_add_kernel\(add\): SOURCE or MODULE, not both
triton_add_kernel(add  # <- error
  SOURCE ${KERNELS}/add.py
  MODULE kernels.add
  FUNCTION add_kernel
  SIGNATURE "*fp32, *fp32, *fp32, i32, 1024"
  GRID "cdiv(n_elements, 1024)")
