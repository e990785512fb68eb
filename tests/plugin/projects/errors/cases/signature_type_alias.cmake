# numpy's and torch's spellings of a type are named with the grammar's.
# expect: triton_add_kernel\(add\): SIGNATURE "\*float32, \*fp32, \*fp32, i32, 1024": entry 1:
# expect: unknown type 'float32'; did you mean 'fp32'\?
triton_add_kernel(add SOURCE ${KERNELS}/add.py FUNCTION add_kernel  # <- error
  SIGNATURE "*float32, *fp32, *fp32, i32, 1024" GRID "cdiv(n_elements, 1024)")
