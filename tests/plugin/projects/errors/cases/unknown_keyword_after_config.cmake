# A keyword after CONFIG that is not one is named as a keyword, not read as a config.
# expect: triton_add_kernel\(add\): unknown keyword 'HEURISTICZ'; the keywords are SOURCE,
triton_add_kernel(add  # <- error
  SOURCE ${KERNELS}/add.py
  FUNCTION add_kernel
  SIGNATURE "*fp32, *fp32, *fp32, i32, BLOCK"
  GRID "cdiv(n_elements, BLOCK)"
  CONFIG "BLOCK=1024" HEURISTICZ "X=1")
