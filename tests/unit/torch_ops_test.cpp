// triton-aot-ld --torch-ops: the operator schemas and calls made from a library's manifest.
// (Building and loading them in torch: tests/torch, the Torch.* tests.)
#include "linker/torch_ops.h"

#include <gtest/gtest.h>

namespace tta::link {
namespace {

ManifestParam param(const std::string &name, const std::string &kind, const std::string &type,
                    const std::string &cType, std::optional<bool> written = std::nullopt) {
  ManifestParam p;
  p.name = p.cName = name;
  p.kind = kind;
  p.type = type;
  p.cType = cType;
  p.written = written;
  return p;
}

LibraryManifest library(std::vector<ManifestParam> params, bool callerGrid = false) {
  LibraryManifest m;
  m.name = "lib";
  m.prefix = "lib";
  ManifestKernel k;
  k.name = "k";
  k.function = "k_kernel";
  k.source = "k.py";
  k.params = std::move(params);
  if (!callerGrid)
    k.grid = std::array<std::string, 3>{"n", "1", "1"};
  m.kernels.push_back(std::move(k));
  return m;
}

TEST(TorchOps, TheSchemaMarksWhatTheKernelWritesAndUnknownAsWritten) {
  auto source = torchOpsSource(
      library({param("x", "pointer", "*fp16", "const void *", false),
               param("out", "pointer", "*fp32", "const void *", true),
               param("acc", "pointer", "*i32", "const void *"),   // not known: written
               param("n", "scalar", "i64", "int64_t"), param("eps", "scalar", "fp32", "float"),
               param("h", "scalar", "fp16", "uint16_t"), param("flag", "scalar", "i1", "bool")},
              /*callerGrid=*/true),
      "ns");
  ASSERT_TRUE(source) << source.error().message;
  EXPECT_NE(source->find("m.def(\"k(Tensor x, Tensor(a!) out, Tensor(b!) acc, int n, float eps, "
                         "float h, bool flag, int[3] grid) -> ()\");"),
            std::string::npos)
      << *source;
  // A boxed function per op: the tensors and the grid taken off the stack (handles the op owns
  // and deletes), then the scalars, each from its schema argument's place; no TORCH_BOX.
  EXPECT_NE(source->find("void tta_k_cuda(StableIValue *tta_stack, uint64_t tta_num_args, "
                         "uint64_t tta_num_outputs) {\n  const char *op = \"ns::k\";\n"
                         "  checkStack(tta_num_args, tta_num_outputs, 8);\n"
                         "  const TensorArg x(tta_stack[0]), out(tta_stack[1]), "
                         "acc(tta_stack[2]);\n"
                         "  const IntListArg grid(tta_stack[7]);\n"
                         "  const int64_t n = torch::stable::detail::to<int64_t>(tta_stack[3]);\n"
                         "  const double eps = torch::stable::detail::to<double>(tta_stack[4]);\n"
                         "  const double h = torch::stable::detail::to<double>(tta_stack[5]);\n"
                         "  const bool flag = torch::stable::detail::to<bool>(tta_stack[6]);\n"),
            std::string::npos)
      << *source;
  // The Meta function takes the tensors and the grid (to delete them) but not the scalars.
  EXPECT_NE(source->find("  checkStack(tta_num_args, tta_num_outputs, 8);\n"
                         "  const TensorArg x(tta_stack[0]), out(tta_stack[1]), "
                         "acc(tta_stack[2]);\n"
                         "  const IntListArg grid(tta_stack[7]);\n"
                         "  checkTensor(op, \"x\", x, kHalf, \"fp16\", nullptr);\n"),
            std::string::npos)
      << *source;
  EXPECT_EQ(source->find("TORCH_BOX("), std::string::npos);
  EXPECT_NE(source->find("m.impl(\"k\", &tta_k_cuda);"), std::string::npos);
  EXPECT_NE(source->find("m.impl(\"k\", &tta_k_meta);"), std::string::npos);
  // Each dtype's number asked of torch once, at load, whatever the number of tensors of it.
  EXPECT_NE(source->find("const int32_t kHalf = aoti_torch_dtype_float16();\n"
                         "const int32_t kInt = aoti_torch_dtype_int32();\n"),
            std::string::npos);
  // Each tensor checked by name and dtype; scalars converted to the C API's exact types.
  EXPECT_NE(source->find("checkTensor(op, \"x\", x, kHalf, \"fp16\", &device);"),
            std::string::npos);
  EXPECT_NE(source->find("checkedInt<int64_t>(op, \"n\", n)"), std::string::npos);
  EXPECT_NE(source->find("static_cast<float>(eps)"), std::string::npos);
  EXPECT_NE(source->find("triton_aot_fp16(static_cast<float>(h))"), std::string::npos);
  EXPECT_NE(source->find("lib_k(stream, checkedInt<uint32_t>(op, \"grid\", grid[0])"),
            std::string::npos);
  for (const char *key : {"CUDA", "CPU", "Meta"})
    EXPECT_NE(source->find(std::string("STABLE_TORCH_LIBRARY_IMPL(ns, ") + key + ", m)"),
              std::string::npos)
        << key;
}

/// A descriptor's C parameters (the manifest's: base, shapes, strides).
std::vector<ManifestParam> descriptor(const std::string &name, const std::string &type, int rank,
                                      std::optional<bool> written) {
  ManifestParam base = param(name, "tensordesc", type, "const void *", written);
  base.cName = name + "_base";
  base.tensordesc = name;
  std::vector<ManifestParam> params{base};
  for (const char *part : {"shape", "stride"})
    for (int d = 0; d < rank; ++d) {
      ManifestParam p = param(name + "." + part + std::to_string(d),
                              std::string("tensordesc_") + part, "i64", "int64_t");
      p.cName = name + "_" + part + std::to_string(d);
      p.tensordesc = name;
      p.dim = d;
      params.push_back(p);
    }
  return params;
}

TEST(TorchOps, ATensorDescriptorIsOneTensorItsShapeAndStridesFromIt) {
  std::vector<ManifestParam> params = descriptor("a_desc", "tensordesc<fp16[128, 64]>", 2, false);
  for (const ManifestParam &p : descriptor("c_desc", "tensordesc<bf16[64, 64, 16]>", 3, true))
    params.push_back(p);
  params.push_back(param("K", "scalar", "i32", "int32_t"));
  auto source = torchOpsSource(library(params), "ns");
  ASSERT_TRUE(source) << source.error().message;
  EXPECT_NE(source->find("m.def(\"k(Tensor a_desc, Tensor(a!) c_desc, int K) -> ()\");"),
            std::string::npos)
      << *source;
  EXPECT_NE(source->find("checkTensor(op, \"a_desc\", a_desc_base, kHalf, \"fp16\", "
                         "&device);\n  checkRank(op, \"a_desc\", a_desc_base, 2);"),
            std::string::npos)
      << *source;
  EXPECT_NE(source->find("checkTensor(op, \"c_desc\", c_desc_base, kBFloat16, \"bf16\", "
                         "nullptr);\n  checkRank(op, \"c_desc\", c_desc_base, 3);"),
            std::string::npos)
      << "the Meta function checks the rank too\n"
      << *source;
  // The C API's base, shapes (outermost first) and strides, in elements, as torch has them
  EXPECT_NE(source->find("lib_k(stream, a_desc_base.data_ptr(), a_desc_base.size(0), "
                         "a_desc_base.size(1), a_desc_base.stride(0), a_desc_base.stride(1), "
                         "c_desc_base.data_ptr(), c_desc_base.size(0), c_desc_base.size(1), "
                         "c_desc_base.size(2), c_desc_base.stride(0), c_desc_base.stride(1), "
                         "c_desc_base.stride(2), checkedInt<int32_t>(op, \"K\", K));"),
            std::string::npos)
      << *source;
}

TEST(TorchOps, AKernelWithoutArgumentsIsCalledWithTheStreamAlone) {
  auto source = torchOpsSource(library({}), "ns");
  ASSERT_TRUE(source) << source.error().message;
  EXPECT_NE(source->find("lib_k(stream);"), std::string::npos) << *source;
  // Nothing to take off the stack: the stack named unused (the ops compile with -Wextra).
  EXPECT_NE(source->find("checkStack(tta_num_args, tta_num_outputs, 0);\n  (void)tta_stack;\n"),
            std::string::npos)
      << *source;
}

TEST(TorchOps, WhatNoOpCanTakeIsRefusedByName) {
  auto desc = torchOpsSource(
      library(descriptor("a_desc", "tensordesc<fp8e4b15[64, 64]>", 2, std::nullopt)), "ns");
  ASSERT_FALSE(desc);
  EXPECT_EQ(desc.error().message, "--torch-ops: kernel 'k' takes 'a_desc' as a tensor descriptor "
                                  "of fp8e4b15, a type torch has no dtype for");
  auto grid = torchOpsSource(library({param("grid", "pointer", "*fp32", "const void *")},
                                     /*callerGrid=*/true),
                             "ns");
  ASSERT_FALSE(grid);
  EXPECT_EQ(grid.error().message, "--torch-ops: kernel 'k' has a parameter named 'grid', the name "
                                  "its op gives the caller's grid; rename the parameter");
  auto fp8 = torchOpsSource(library({param("p", "pointer", "*fp8e4b15", "const void *")}), "ns");
  ASSERT_FALSE(fp8);
  EXPECT_EQ(fp8.error().message, "--torch-ops: kernel 'k' takes 'p' as a pointer to fp8e4b15, a "
                                 "type torch has no dtype for");
}

} // namespace
} // namespace tta::link
