#include "matmul_run.h"

#include <vector>

namespace tta::gpu {
namespace {

constexpr uint16_t kHalfNaN = 0x7e00;
constexpr uint16_t kSentinel = 0xffff;  // a NaN pattern the kernel never stores

// Elements a matrix of `rows` x `cols` occupies with the given strides (one of them 1).
size_t extent(int rows, int cols, int row_stride, int col_stride) {
  return static_cast<size_t>(rows - 1) * row_stride + static_cast<size_t>(cols - 1) * col_stride + 1;
}

size_t index(int row, int col, int row_stride, int col_stride) {
  return static_cast<size_t>(row) * row_stride + static_cast<size_t>(col) * col_stride;
}

// Random values at the matrix's elements, NaN everywhere else in its extent.
std::vector<uint16_t> randomMatrix(std::mt19937_64 &random, int rows, int cols, int row_stride,
                                   int col_stride) {
  std::vector<uint16_t> data(extent(rows, cols, row_stride, col_stride), kHalfNaN);
  std::vector<uint16_t> values = uniformHalves(random, static_cast<size_t>(rows) * cols, -1.0f, 1.0f);
  size_t next = 0;
  for (int r = 0; r < rows; ++r)
    for (int c = 0; c < cols; ++c) data[index(r, c, row_stride, col_stride)] = values[next++];
  return data;
}

}  // namespace

MatmulShape rowMajor(int M, int N, int K, int row_pad) {
  return {M, N, K, K + row_pad, 1, N + row_pad, 1, N + row_pad, 1};
}

std::string runMatmul(const MatmulKernel &kernel, const MatmulShape &s, CUstream stream,
                      std::mt19937_64 &random, Comparison *result) {
  std::vector<uint16_t> a = randomMatrix(random, s.M, s.K, s.stride_am, s.stride_ak);
  std::vector<uint16_t> b = randomMatrix(random, s.K, s.N, s.stride_bk, s.stride_bn);
  std::vector<uint16_t> c(extent(s.M, s.N, s.stride_cm, s.stride_cn));
  const size_t a_bytes = a.size() * 2, b_bytes = b.size() * 2, c_bytes = c.size() * 2;
  DeviceBuffer da(a_bytes), db(b_bytes), dc(c_bytes);
  for (const DeviceBuffer *buffer : {&da, &db, &dc})
    if (!buffer->ok()) return buffer->error();
  std::string error = da.upload(a.data(), a_bytes);
  if (error.empty()) error = db.upload(b.data(), b_bytes);
  if (error.empty()) error = dc.fill(0xff);
  if (!error.empty()) return error;

  int status = kernel.launch(stream, da.at(), db.at(), dc.at());
  if (status != 0)
    return std::string("launch returned ") + statusName(status) + ": " + kernel.last_error();
  if (CUresult r = cudaDriver().cuStreamSynchronize(stream); r != CUDA_SUCCESS)
    return "cuStreamSynchronize after the launch: " + cudaDriver().describe(r);
  if (error = dc.download(c.data(), c_bytes); !error.empty()) return error;

  std::vector<float> got, reference;
  std::vector<bool> inside(c.size(), false);
  for (int m = 0; m < s.M; ++m) {
    for (int n = 0; n < s.N; ++n) {
      double sum = 0;
      for (int k = 0; k < s.K; ++k)
        sum += static_cast<double>(halfToFloat(a[index(m, k, s.stride_am, s.stride_ak)])) *
               halfToFloat(b[index(k, n, s.stride_bk, s.stride_bn)]);
      size_t at = index(m, n, s.stride_cm, s.stride_cn);
      inside[at] = true;
      if (n == s.N - 1 && s.stride_cn == 1)
        for (int extra = 1; extra <= kernel.row_write_slack && n + extra < s.stride_cm; ++extra)
          inside[at + static_cast<size_t>(extra)] = true;   // may hold anything
      got.push_back(halfToFloat(c[at]));
      reference.push_back(static_cast<float>(sum));
    }
  }
  for (size_t i = 0; i < c.size(); ++i)
    if (!inside[i] && c[i] != kSentinel)
      return "wrote padding of C at element " + std::to_string(i);
  // fp16 inputs multiply exactly and accumulate in fp32; the fp16 result is off by at most
  // half an fp16 ulp (2^-11 relative): 1e-2 absolute and relative leaves room, while a wrong
  // tile, stride or mask gives errors of order 1.
  *result = compare(got, reference, 1e-2, 1e-2);
  return {};
}

}  // namespace tta::gpu
