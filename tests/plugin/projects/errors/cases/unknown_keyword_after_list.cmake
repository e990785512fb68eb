# A misspelt keyword after a list keyword (GRID) must not pass as one more grid expression.
# expect: triton_add_kernel\(add\): unknown keyword 'CONFIGS'
# expect: SOURCE, MODULE, FUNCTION, HEURISTIC, HEURISTIC_VALUES, SIGNATURE, GRID, CONFIG,
# expect: DROP_PRE_HOOKS, OPTIONS, TUNE_KEY, TUNE_SHAPES, TUNE_ARGS, TUNE_GRID and SPECIALIZE
triton_add_kernel(add  # <- error
  SOURCE ${KERNELS}/add.py
  FUNCTION add_kernel
  SIGNATURE "*fp32, *fp32, *fp32, i32, BLOCK"
  GRID "cdiv(n_elements, BLOCK)"
  CONFIGS "BLOCK=1024")
