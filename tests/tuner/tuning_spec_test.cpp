// The tuning spec: what parses, every error with its text, and the spec checked against a
// kernel of a library's manifest (bindKernel) and turned into arguments and grids.
#include "tuner/kernel_arguments.h"
#include "tuner/kernel_library.h"
#include "tuner/tuning_spec.h"

#include <gtest/gtest.h>

#include <cstring>
#include <fstream>

namespace tta::tune {
namespace {

using nlohmann::json;

json matmulSpec() {
  return json::parse(R"json({"schema": "triton-aot-tuning-spec", "version": 1, "kernels": [
    {"kernel": "matmul", "key": ["M", "N", "K"], "shapes": [[512, 512, 512], [64, 128, 256]],
     "args": {"a_ptr": "M * K", "b_ptr": "K * N", "c_ptr": "M * N", "stride_am": "K",
              "stride_ak": "1", "scale": "0.5"}}]})json");
}

std::string specError(const json &spec) {
  auto parsed = parseTuningSpec(spec, "mm.tune.json");
  EXPECT_FALSE(parsed);
  return parsed ? "" : parsed.error().file + ": " + parsed.error().message;
}

TEST(TuningSpec, ParsesKernelsKeyShapesArgsAndGrid) {
  json spec = matmulSpec();
  spec["kernels"].push_back(json::parse(R"json({"kernel": "rms_norm", "key": ["n_cols"],
      "shapes": [[1024]], "args": {"x": "4 * n_cols"},
      "grid": ["cdiv(n_cols, BLOCK)", "1", "1"]})json"));
  auto parsed = parseTuningSpec(spec, "mm.tune.json");
  ASSERT_TRUE(parsed) << parsed.error().message;
  ASSERT_EQ(parsed->kernels.size(), 2u);
  const KernelSpec &mm = parsed->kernels[0];
  EXPECT_EQ(mm.kernel, "matmul");
  EXPECT_EQ(mm.key, (std::vector<std::string>{"M", "N", "K"}));
  EXPECT_EQ(mm.shapes[1], (std::vector<std::int64_t>{64, 128, 256}));
  EXPECT_EQ(mm.args.size(), 6u);
  ASSERT_NE(findArg(mm, "scale"), nullptr);
  EXPECT_EQ(findArg(mm, "scale")->expression.text(), "0.5");
  EXPECT_EQ(findArg(mm, "nope"), nullptr);
  EXPECT_FALSE(mm.grid);
  EXPECT_EQ(mm.where, "mm.tune.json: kernels[0] (matmul)");
  ASSERT_TRUE(parsed->kernels[1].grid);
  EXPECT_EQ((*parsed->kernels[1].grid)[0].text(), "cdiv(n_cols, BLOCK)");
}

TEST(TuningSpec, EveryErrorNamesTheProblem) {
  auto with = [](const std::function<void(json &)> &edit) {
    json spec = matmulSpec();
    edit(spec);
    return spec;
  };
  auto kernel = [&](const std::function<void(json &)> &edit) {
    return with([&](json &s) { edit(s["kernels"][0]); });
  };
  const std::string at = "mm.tune.json: kernels[0] (matmul): ";
  EXPECT_EQ(specError(json::array()), "mm.tune.json: a tuning spec is a JSON object");
  EXPECT_EQ(specError(with([](json &s) { s["kernel"] = 1; })),
            "mm.tune.json: unknown member 'kernel'; a spec has schema, version and kernels");
  EXPECT_EQ(specError(with([](json &s) { s["schema"] = "triton-aot-tuning"; })),
            "mm.tune.json: schema must be \"triton-aot-tuning-spec\"");
  EXPECT_EQ(specError(with([](json &s) { s["version"] = 2; })),
            "mm.tune.json: version must be 1 (this triton-aot-tune reads version 1)");
  EXPECT_EQ(specError(with([](json &s) { s["kernels"] = json::array(); })),
            "mm.tune.json: kernels must be a non-empty list");
  EXPECT_EQ(specError(with([](json &s) { s["kernels"][0] = 3; })),
            "mm.tune.json: kernels[0] must be an object");
  EXPECT_EQ(specError(kernel([](json &k) { k.erase("kernel"); })),
            "mm.tune.json: kernels[0].kernel must be the kernel's name in the library");
  EXPECT_EQ(specError(kernel([](json &k) { k["shape"] = 1; })),
            at + "unknown member 'shape'; a kernel has kernel, key, shapes, args and grid");
  EXPECT_EQ(specError(kernel([](json &k) { k["key"] = json::array(); })),
            at + "key must be a non-empty list of integer parameter names");
  EXPECT_EQ(specError(kernel([](json &k) { k["key"] = {"M", 1, "K"}; })),
            at + "key must list parameter names (strings)");
  EXPECT_EQ(specError(kernel([](json &k) { k["key"] = {"M", "M", "K"}; })),
            at + "key names 'M' twice");
  EXPECT_EQ(specError(kernel([](json &k) { k.erase("shapes"); })),
            at + "shapes must be a non-empty list of key values, e.g. [[512, 512, 512]]");
  EXPECT_EQ(specError(kernel([](json &k) { k["shapes"][1] = {1, 2}; })),
            at + "shapes[1] must list 3 integers, one per key name");
  EXPECT_EQ(specError(kernel([](json &k) { k["shapes"][1] = {1, 0, 2}; })),
            at + "shapes[1] must hold positive integers, not 0");
  EXPECT_EQ(specError(kernel([](json &k) { k["shapes"][1] = {1, 2.5, 2}; })),
            at + "shapes[1] must hold positive integers, not 2.5");
  EXPECT_EQ(specError(kernel([](json &k) { k["shapes"][1] = {512, 512, 512}; })),
            at + "shapes[1] repeats the shape [512,512,512]");
  EXPECT_EQ(specError(kernel([](json &k) { k["args"] = json::array(); })),
            at + "args must be an object: C parameter name -> expression");
  EXPECT_EQ(specError(kernel([](json &k) { k["args"]["a_ptr"] = 5; })),
            at + "args.a_ptr must be a string expression, not number");
  EXPECT_EQ(specError(kernel([](json &k) { k["args"]["a_ptr"] = "M * (K"; })),
            at + "args.a_ptr \"M * (K\": column 7: expected ')'");
  EXPECT_EQ(specError(kernel([](json &k) { k["args"]["a_ptr"] = "M * BLOCK_K"; })),
            at + "args.a_ptr \"M * BLOCK_K\": column 5: unknown name 'BLOCK_K'; an arg may read "
                 "the key's names (M, N, K)");
  EXPECT_EQ(specError(kernel([](json &k) { k["grid"] = {"1", "1"}; })),
            at + "grid must list three expressions (x, y, z)");
  EXPECT_EQ(specError(kernel([](json &k) { k["grid"] = {"1", "cdiv(M,", "1"}; })),
            at + "grid[1] \"cdiv(M,\": column 8: expression ends early");
  EXPECT_EQ(specError(with([](json &s) { s["kernels"].push_back(s["kernels"][0]); })),
            "mm.tune.json: kernels[1] names kernel 'matmul' again; give each kernel once");
}

TEST(TuningSpec, ReadsFilesAndSaysWhenTheyAreMissingOrNotJson) {
  auto missing = readTuningSpec("/nonexistent/mm.tune.json");
  ASSERT_FALSE(missing);
  EXPECT_EQ(missing.error().message, "cannot read the tuning spec");
  EXPECT_EQ(missing.error().code, ExitCode::UsageError);
  std::string path = ::testing::TempDir() + "/not-json.tune.json";
  std::ofstream(path) << "{\"schema\": ";
  auto notJson = readTuningSpec(path);
  ASSERT_FALSE(notJson);
  EXPECT_EQ(notJson.error().file, path);
  EXPECT_EQ(notJson.error().message, "not valid JSON");
}

// --- Against a kernel of a library ----------------------------------------------------------

ManifestParam manifestParam(std::string name, std::string cName, std::string kind,
                            std::string type, std::string cType, int size) {
  ManifestParam param;
  param.name = std::move(name);
  param.cName = std::move(cName);
  param.kind = std::move(kind);
  param.type = std::move(type);
  param.cType = std::move(cType);
  param.size = size;
  return param;
}

ManifestConfig manifestConfig(int index, std::string name,
                              std::map<std::string, json> constexprs) {
  ManifestConfig config;
  config.index = index;
  config.name = std::move(name);
  config.constexprs = std::move(constexprs);
  return config;
}

ManifestKernel matmulKernel() {
  ManifestKernel kernel;
  kernel.name = "matmul";
  kernel.grid = {"cdiv(M, BLOCK_M)", "1", "1"};
  auto param = [&](std::string name, std::string kind, std::string type, std::string cType,
                   int size) {
    kernel.params.push_back(manifestParam(name, name, kind, type, cType, size));
  };
  param("a_ptr", "pointer", "*fp16", "const void *", 8);
  param("b_ptr", "pointer", "*fp16", "const void *", 8);
  param("c_ptr", "pointer", "*fp32", "const void *", 8);
  param("M", "scalar", "i32", "int32_t", 4);
  param("N", "scalar", "i32", "int32_t", 4);
  param("K", "scalar", "i64", "int64_t", 8);
  param("stride_am", "scalar", "i32", "int32_t", 4);
  param("stride_ak", "scalar", "i32", "int32_t", 4);
  param("scale", "scalar", "fp16", "uint16_t", 2);
  kernel.configs.push_back(manifestConfig(0, "small", {{"BLOCK_M", 32}}));
  kernel.configs.push_back(manifestConfig(1, "large", {{"BLOCK_M", 64}}));
  kernel.targets = {"cuda:80", "cuda:90a"};
  return kernel;
}

KernelSpec parseOne(const json &spec) {
  auto parsed = parseTuningSpec(spec, "mm.tune.json");
  EXPECT_TRUE(parsed) << parsed.error().message;
  return parsed ? parsed->kernels[0] : KernelSpec{};
}

std::string bindError(const json &spec, const ManifestKernel &kernel) {
  KernelSpec parsed = parseOne(spec);
  auto bound = bindKernel(parsed, kernel);
  EXPECT_FALSE(bound);
  if (bound)
    return "";
  std::string text = bound.error().file + ": " + bound.error().message;
  for (const auto &note : bound.error().notes)
    text += " | " + note;
  return text;
}

TEST(TuningSpecBinding, KeyParametersDefaultToTheKeyAndArgumentsTakeTheirCWidth) {
  KernelSpec spec = parseOne(matmulSpec());
  ManifestKernel kernel = matmulKernel();
  auto bound = bindKernel(spec, kernel);
  ASSERT_TRUE(bound) << bound.error().message;
  std::vector<std::size_t> sizes;
  std::uint64_t next = 0x1000;
  std::mt19937_64 random(1);
  auto arguments = buildArguments(*bound, {64, 128, 256}, random,
                                  [&](const std::vector<unsigned char> &bytes) -> Expected<std::uint64_t> {
                                    sizes.push_back(bytes.size());
                                    return next += 0x100000;
                                  });
  ASSERT_TRUE(arguments) << arguments.error().message;
  EXPECT_EQ(sizes, (std::vector<std::size_t>{64 * 256 * 2, 256 * 128 * 2, 64 * 128 * 4}));
  ASSERT_EQ(arguments->pointers.size(), kernel.params.size());
  const void *a = nullptr;
  std::memcpy(&a, arguments->pointers[0], sizeof a);
  EXPECT_EQ(reinterpret_cast<std::uintptr_t>(a), 0x101000u);
  auto i32 = [&](int i) { std::int32_t v; std::memcpy(&v, arguments->pointers[i], 4); return v; };
  EXPECT_EQ(i32(3), 64);    // M from the args
  EXPECT_EQ(i32(4), 128);   // N: not in args, from the key
  std::int64_t k;
  std::memcpy(&k, arguments->pointers[5], 8);
  EXPECT_EQ(k, 256);
  EXPECT_EQ(i32(6), 256);   // stride_am = K
  EXPECT_EQ(i32(7), 1);
  std::uint16_t scale;
  std::memcpy(&scale, arguments->pointers[8], 2);
  EXPECT_EQ(scale, 0x3800);   // 0.5 in fp16
}

TEST(TuningSpecBinding, RandomBuffersAreNeverZeroAndRepeatWithTheSeed) {
  for (const char *type : {"fp32", "fp16", "bf16", "fp64", "i8", "i32", "i64", "u16", "i1",
                           "fp8e4nv", "fp8e5"}) {
    std::mt19937_64 first(7), second(7);
    auto a = randomElements(type, 1000, first), b = randomElements(type, 1000, second);
    EXPECT_EQ(a, b) << type;
    int size = elementBytes(type);
    ASSERT_EQ(a.size(), 1000u * size) << type;
    for (std::size_t i = 0; i < 1000; ++i) {
      bool zero = true;
      for (int j = 0; j < size; ++j)
        zero &= (a[i * size + j] & (j == size - 1 && type[0] == 'f' ? 0x7f : 0xff)) == 0;
      EXPECT_FALSE(zero) << type << " element " << i;
    }
  }
  std::mt19937_64 random(3);
  auto floats = randomElements("fp32", 1000, random);
  for (std::size_t i = 0; i < 1000; ++i) {
    float v;
    std::memcpy(&v, floats.data() + 4 * i, 4);
    EXPECT_GE(v, -1.0f);
    EXPECT_LT(v, 1.0f);
  }
}

TEST(TuningSpecBinding, EveryMismatchWithTheLibraryNamesTheFix) {
  ManifestKernel kernel = matmulKernel();
  const std::string at = "mm.tune.json: kernels[0] (matmul): ";
  kernel.params[5].type = "fp32";   // K
  EXPECT_EQ(bindError(matmulSpec(), kernel),
            at + "key name 'K' is not an integer runtime parameter of matmul (it is fp32) | "
                 "the key names integer parameters the C function takes: M, N, stride_am, "
                 "stride_ak");
  kernel = matmulKernel();
  kernel.params.erase(kernel.params.begin() + 4);   // N
  EXPECT_EQ(bindError(matmulSpec(), kernel),
            at + "key name 'N' is not an integer runtime parameter of matmul | the key "
                 "names integer parameters the C function takes: M, K, stride_am, stride_ak");
  kernel = matmulKernel();
  json spec = matmulSpec();
  spec["kernels"][0]["args"]["bias_ptr"] = "M";
  EXPECT_EQ(bindError(spec, kernel),
            at + "args.bias_ptr is not a parameter of matmul | its C parameters are a_ptr, "
                 "b_ptr, c_ptr, M, N, K, stride_am, stride_ak, scale");
  spec = matmulSpec();
  spec["kernels"][0]["args"].erase("stride_ak");
  EXPECT_EQ(bindError(spec, kernel),
            at + "args has no stride_ak, a parameter of matmul (i32) | give every runtime "
                 "parameter: a pointer's element count or a scalar's value, e.g. \"stride_ak\": "
                 "\"M * K\"");
  spec = matmulSpec();
  spec["kernels"][0]["grid"] = {"1", "1", "1"};
  EXPECT_EQ(bindError(spec, kernel), at + "kernel matmul computes its own grid: remove \"grid\"");
  kernel.grid.reset();   // the caller passes the grid
  EXPECT_EQ(bindError(matmulSpec(), kernel),
            at + "kernel matmul takes the caller's grid: give \"grid\" | e.g. \"grid\": "
                 "[\"cdiv(M, BLOCK_M)\", \"1\", \"1\"] over the key and the config's constexprs");
  kernel = matmulKernel();
  kernel.params[0].type = "*weird";
  EXPECT_EQ(bindError(matmulSpec(), kernel),
            at + "args.a_ptr: cannot fill a buffer of *weird (element type 'weird')");
}

Diagnostic argumentsError(const json &spec, const ManifestKernel &kernel,
                          const std::vector<std::int64_t> &key) {
  KernelSpec parsed = parseOne(spec);
  auto bound = bindKernel(parsed, kernel);
  EXPECT_TRUE(bound) << bound.error().message;
  std::mt19937_64 random(1);
  auto arguments = buildArguments(*bound, key, random, [](const std::vector<unsigned char> &) {
    return Expected<std::uint64_t>(std::uint64_t(0x1000));
  });
  EXPECT_FALSE(arguments);
  return arguments ? Diagnostic{} : arguments.error();
}

TEST(TuningSpecBinding, ArgumentValuesThatCannotBePassedAreErrors) {
  ManifestKernel kernel = matmulKernel();
  json spec = matmulSpec();
  spec["kernels"][0]["args"]["stride_am"] = "0.5";
  EXPECT_EQ(argumentsError(spec, kernel, {1, 2, 3}).message,
            "args.stride_am at M=1 N=2 K=3 is 0.500000, but stride_am is an integer (i32)");
  spec = matmulSpec();
  spec["kernels"][0]["args"]["stride_am"] = "K * 1000000000";
  EXPECT_EQ(argumentsError(spec, kernel, {1, 2, 3}).message,
            "args.stride_am at M=1 N=2 K=3 is 3000000000, out of range for stride_am (i32)");
  spec = matmulSpec();
  spec["kernels"][0]["args"]["a_ptr"] = "M - K";
  EXPECT_EQ(argumentsError(spec, kernel, {1, 2, 3}).message,
            "args.a_ptr at M=1 N=2 K=3 gives -2 elements; a buffer needs a positive integer count");
  spec = matmulSpec();
  spec["kernels"][0]["args"]["a_ptr"] = "M / (K - 3)";
  EXPECT_EQ(argumentsError(spec, kernel, {1, 2, 3}).message,
            "args.a_ptr \"M / (K - 3)\": column 3: division by zero (at M=1 N=2 K=3)");
  EXPECT_EQ(argumentsError(spec, kernel, {1, 2, 3}).file, "mm.tune.json: kernels[0] (matmul)");
}

TEST(TuningSpecBinding, CallerGridsReadTheKeyAndTheConfigsConstexprs) {
  ManifestKernel kernel = matmulKernel();
  kernel.grid.reset();   // the caller passes the grid
  json spec = matmulSpec();
  spec["kernels"][0]["grid"] = {"cdiv(M, BLOCK_M)", "N / 64", "1"};
  KernelSpec parsed = parseOne(spec);
  auto bound = bindKernel(parsed, kernel);
  ASSERT_TRUE(bound) << bound.error().message;
  auto grid = evaluateGrid(*bound, {100, 128, 8}, kernel.configs[1]);
  ASSERT_TRUE(grid) << grid.error().message;
  EXPECT_EQ(*grid, (std::array<std::uint32_t, 3>{2, 2, 1}));

  spec["kernels"][0]["grid"] = {"cdiv(M, BLOCK_N)", "1", "1"};
  parsed = parseOne(spec);
  bound = bindKernel(parsed, kernel);
  ASSERT_TRUE(bound);
  grid = evaluateGrid(*bound, {100, 128, 8}, kernel.configs[1]);
  ASSERT_FALSE(grid);
  EXPECT_EQ(grid.error().message,
            "grid[0] \"cdiv(M, BLOCK_N)\": column 9: unknown name 'BLOCK_N'; the names are "
            "BLOCK_M, K, M, N (config large, M=100 N=128 K=8)");
  spec["kernels"][0]["grid"] = {"1", "0 - M", "1"};
  parsed = parseOne(spec);
  bound = bindKernel(parsed, kernel);
  ASSERT_TRUE(bound);
  grid = evaluateGrid(*bound, {100, 128, 8}, kernel.configs[0]);
  ASSERT_FALSE(grid);
  EXPECT_EQ(grid.error().message, "grid[1] \"0 - M\" is -100 (config small, M=100 N=128 K=8); a "
                                  "grid dimension is an integer from 0 to 2^32 - 1");
}

TEST(LibraryManifest, ReadsWhatTheTunerNeeds) {
  // A library's manifest as triton-aot-ld writes it, read by the contract's one reader.
  const std::string text = R"json({"schema": "triton-aot-library", "schema_version": 1,
    "generator": "triton-aot-ld 0.1.0", "name": "mm", "prefix": "mm", "triton_versions": ["3.6.0"],
    "kernels": [{"name": "matmul", "function": "matmul_kernel", "source": "mm.py", "grid": null,
      "targets": ["cuda:90a"], "constexpr_params": ["B", "EVEN", "S"],
      "specialized_to_one_params": [], "global_scratch_arg": true, "profile_scratch_arg": true,
      "autotune": null,
      "params": [{"name": "int", "c_name": "int_", "kind": "scalar", "type": "i32",
                  "c_type": "int32_t", "size": 4}],
      "configs": [{"index": 0, "name": "c0", "named": true, "num_warps": 4, "num_stages": 3,
                   "options": {}, "constexprs": {"B": 64, "EVEN": true, "S": "x"},
                   "variants": [{"hints": {}, "condition": "1", "functions": [
                     {"target": "cuda:90a", "refused": "config c0 is not built for cuda:90a: no"}]}]}]}]})json";
  auto manifest = parseLibraryManifest(std::string_view(text), "libmm.so");
  ASSERT_TRUE(manifest) << manifest.error().message;
  EXPECT_EQ(tritonVersionsOf(*manifest), "3.6.0");
  const ManifestKernel *kernel = findKernel(*manifest, "matmul");
  ASSERT_NE(kernel, nullptr);
  EXPECT_TRUE(takesCallerGrid(*kernel));
  EXPECT_EQ(kernel->params[0].cName, "int_");
  EXPECT_EQ(integerConstexprs(kernel->configs[0]), (ExprNames{{"B", 64}, {"EVEN", 1}}));
  EXPECT_EQ(findKernel(*manifest, "other"), nullptr);

  auto newer = parseLibraryManifest(
      std::string_view(R"json({"schema": "triton-aot-library", "schema_version": 2})json"), "x");
  ASSERT_FALSE(newer);
  EXPECT_EQ(newer.error().file, "x");
  EXPECT_EQ(newer.error().message,
            "schema_version 2 is newer than this tool supports (1); update triton-aot");
  EXPECT_FALSE(parseLibraryManifest(std::string_view("["), "x"));
  EXPECT_EQ(prefixFromLibraryPath("build/libmm.so"), "mm");
  EXPECT_EQ(prefixFromLibraryPath("libmm.so.1"), "mm");
  EXPECT_EQ(prefixFromLibraryPath("kernels.so"), "kernels");
}

TEST(TuningSpecBinding, TensorDescriptorsTakeABufferOfTheirElementTypeAndShapesAndStrides) {
  ManifestKernel kernel;
  kernel.name = "tma";
  kernel.grid = {"1", "1", "1"};
  kernel.params = {
      manifestParam("a_desc", "a_desc_base", "tensordesc", "tensordesc<bf16[64, 64]>", "const void *", 8),
      manifestParam("a_desc", "a_desc_shape0", "tensordesc_shape", "i64", "int64_t", 8),
      manifestParam("a_desc", "a_desc_stride0", "tensordesc_stride", "i64", "int64_t", 8),
      manifestParam("M", "M", "scalar", "i32", "int32_t", 4)};
  kernel.configs.push_back(manifestConfig(0, "c", {}));
  KernelSpec spec = parseOne(json::parse(R"json({"schema": "triton-aot-tuning-spec",
    "version": 1, "kernels": [{"kernel": "tma", "key": ["M"], "shapes": [[128]],
    "args": {"a_desc_base": "M * 64", "a_desc_shape0": "M", "a_desc_stride0": "64"}}]})json"));
  auto bound = bindKernel(spec, kernel);
  ASSERT_TRUE(bound) << bound.error().message;
  EXPECT_EQ(bound->params[0].elementType, "bf16");
  std::vector<std::size_t> sizes;
  std::mt19937_64 random(1);
  auto arguments = buildArguments(*bound, {128}, random,
                                  [&](const std::vector<unsigned char> &bytes) -> Expected<std::uint64_t> {
                                    sizes.push_back(bytes.size());
                                    return std::uint64_t(0x2000);
                                  });
  ASSERT_TRUE(arguments) << arguments.error().message;
  EXPECT_EQ(sizes, std::vector<std::size_t>{128 * 64 * 2});
  std::int64_t shape0, stride0;
  std::memcpy(&shape0, arguments->pointers[1], 8);
  std::memcpy(&stride0, arguments->pointers[2], 8);
  EXPECT_EQ(shape0, 128);
  EXPECT_EQ(stride0, 64);
}

} // namespace
} // namespace tta::tune
