// Tiny kernels for the image_info unit tests (tests/data/images/README.md).
// scale_shared: 4 KiB of static shared memory.
extern "C" __global__ void __launch_bounds__(128) scale_shared(float *out, const float *in, int n) {
  __shared__ float tile[1024];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  tile[threadIdx.x] = i < n ? in[i] : 0.0f;
  __syncthreads();
  if (i < n) out[i] = 2.0f * tile[(threadIdx.x + 1) % blockDim.x];
}

// local_array: a dynamically indexed array lives in local memory (a stack frame).
extern "C" __global__ void local_array(int *out, const int *in, const int *idx) {
  int buf[256];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
#pragma unroll 1
  for (int k = 0; k < 256; ++k) buf[k] = in[i * 256 + k];
  out[i] = buf[idx[i] & 255] + buf[idx[i + 1] & 255];
}
