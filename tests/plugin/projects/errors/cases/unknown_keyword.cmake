# expect: triton_add_kernel\(add\): unknown keyword 'SOURCES'; the keywords are SOURCE, MODULE,
# expect: FUNCTION, HEURISTIC, HEURISTIC_VALUES, SIGNATURE, GRID, CONFIG,
# expect: DROP_PRE_HOOKS, OPTIONS, TUNE_KEY, TUNE_SHAPES, TUNE_ARGS, TUNE_GRID and SPECIALIZE
triton_add_kernel(add SOURCES ${KERNELS}/add.py FUNCTION add_kernel  # <- error
  SIGNATURE "*fp32, *fp32, *fp32, i32, 1024" GRID "cdiv(n_elements, 1024)")
