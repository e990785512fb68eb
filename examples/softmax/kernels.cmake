# The kernels of the softmax example (also included by bench/: keep it to declarations).
triton_add_kernel(softmax
  SOURCE "${CMAKE_CURRENT_LIST_DIR}/kernels/softmax.py"
  FUNCTION softmax_kernel
  # Row strides are multiples of 16 elements: the program pads its rows.
  SIGNATURE "*fp32:16, *fp32:16, i32:16, i32:16, i32, i32, BLOCK"
  GRID "n_rows"
  # One program holds a whole row: BLOCK is the widest row a config takes. The name says so;
  # the program picks the narrowest config that fits by reading the names.
  CONFIG "name=cols1024 BLOCK=1024 num_warps=4"
  CONFIG "name=cols4096 BLOCK=4096 num_warps=8"
  CONFIG "name=cols16384 BLOCK=16384 num_warps=16")
