# A misspelt type is refused at configure, at the call, with the compiler's "did you mean".
# expect: triton_add_kernel\(add\): SIGNATURE "\*fp32, \*fp32, \*fp32, fp33, 1024": entry 4:
# expect: unknown type 'fp33'; did you mean 'fp32'\?
triton_add_kernel(add SOURCE ${KERNELS}/add.py FUNCTION add_kernel  # <- error
  SIGNATURE "*fp32, *fp32, *fp32, i32, 1024" "*fp32, *fp32, *fp32, fp33, 1024"
  GRID "cdiv(n_elements, 1024)")
