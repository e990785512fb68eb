# triton_add_torch_library() of KERNELS that name no target.
# expect: triton_add_torch_library\(ops\): KERNELS nothing is not a target; declare it with triton_add_library\(\) first
triton_add_torch_library(ops KERNELS nothing)  # <- error
