# The proof set's Gluon kernel (declarations only). A Gluon layout names the threads of a warp,
# a constexpr here, and a kernel's configs are the same for every architecture of its library:
# so one entry point per warp size, each in a library of matching architectures (CUDA: 32,
# AMD CDNA gfx9xx: 64). Both are built; the equality test runs the one the GPU takes.
triton_add_kernel(gluon_add
  SOURCE "${CMAKE_CURRENT_LIST_DIR}/kernels/gluon_add.py"
  FUNCTION gluon_add_kernel
  SIGNATURE "*fp32:16, *fp32:16, *fp32:16, i32, BLOCK, 32"
  GRID "cdiv(n_elements, BLOCK)"
  CONFIG "name=block1024 BLOCK=1024 num_warps=4"
  CONFIG "name=block4096 BLOCK=4096 num_warps=8")
triton_add_kernel(gluon_add_wave64
  SOURCE "${CMAKE_CURRENT_LIST_DIR}/kernels/gluon_add.py"
  FUNCTION gluon_add_kernel
  SIGNATURE "*fp32:16, *fp32:16, *fp32:16, i32, BLOCK, 64"
  GRID "cdiv(n_elements, BLOCK)"
  CONFIG "name=block1024 BLOCK=1024 num_warps=4"
  CONFIG "name=block4096 BLOCK=4096 num_warps=8")
