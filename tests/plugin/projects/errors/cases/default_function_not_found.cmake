# The function defaults to the kernel's name, which add.py does not define.
# expect: triton_add_kernel\(add\): no function 'add' in [^ ]*/kernels/add\.py
triton_add_kernel(add SOURCE ${KERNELS}/add.py  # <- error
  SIGNATURE "*fp32, *fp32, *fp32, i32, 1024" GRID "cdiv(n_elements, 1024)")
