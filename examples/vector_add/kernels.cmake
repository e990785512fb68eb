# The kernels of the vector_add example (also included by bench/: keep it to declarations).
triton_add_kernel(vector_add
  SOURCE "${CMAKE_CURRENT_LIST_DIR}/kernels/vector_add.py"
  FUNCTION add_kernel
  # Hint variants: the first when every pointer is 16-byte aligned and n_elements % 16 == 0,
  # the generic one for any other arguments.
  SIGNATURE "*fp32:16, *fp32:16, *fp32:16, i32:16, BLOCK"
            "*fp32, *fp32, *fp32, i32, BLOCK"
  GRID "cdiv(n_elements, BLOCK)"
  CONFIG "name=block1024 BLOCK=1024 num_warps=4"
  CONFIG "name=block256 BLOCK=256 num_warps=2")
