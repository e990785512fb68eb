// Library-wide calls on a real device: preload, unload and launching again, image choice for a
// device without a fitting image, config bounds, and the launch facts in the manifests.
#include <gpu_hopper.h>
#include <gpu_kernels.h>

#include <nlohmann/json.hpp>

#include <cstdio>
#include <string_view>
#include <vector>

#include "gpu_test_support.h"
#include "vector_add_run.h"

namespace tta::gpu {
namespace {

class LibraryTest : public GpuTest {};

AddKernel vectorAdd() {
  return {[](void *stream, const void *x, const void *y, const void *out, int32_t n) {
            return static_cast<int>(gpu_kernels_vector_add(stream, x, y, out, n));
          },
          gpu_kernels_last_error};
}

TEST_F(LibraryTest, PreloadUnloadAndLaunchAgain) {
  ASSERT_TTA(gpu_kernels_preload(), gpu_kernels_last_error);
  EXPECT_EQ(runVectorAdd(vectorAdd(), stream_, 4096, 0, random_), "");
  ASSERT_TTA(gpu_kernels_unload(), gpu_kernels_last_error);
  EXPECT_EQ(runVectorAdd(vectorAdd(), stream_, 4096, 0, random_), "") << "after unload";
  ASSERT_TTA(gpu_kernels_preload(), gpu_kernels_last_error);
}

TEST_F(LibraryTest, ArchSpecificLibraryRunsOnlyOnItsChip) {
  triton_aot_status status = gpu_hopper_preload();
  if (device_.major == 9 && device_.minor == 0) {
    EXPECT_EQ(status, TRITON_AOT_SUCCESS) << gpu_hopper_last_error();
  } else {
    EXPECT_EQ(status, TRITON_AOT_ERROR_NO_IMAGE) << gpu_hopper_last_error();
    EXPECT_NE(std::string_view(gpu_hopper_last_error()).find("sm_90a"), std::string_view::npos)
        << "the message lists the library's targets: " << gpu_hopper_last_error();
  }
  figure("gpu_hopper_preload", statusName(status));
}

TEST_F(LibraryTest, ConfigOutOfRangeIsRejected) {
  DeviceBuffer buffer(64);
  ASSERT_TRUE(buffer.ok()) << buffer.error();
  for (int config : {-1, 2}) {
    EXPECT_EQ(gpu_kernels_vector_add_config(stream_, config, buffer.at(), buffer.at(),
                                            buffer.at(), 16),
              TRITON_AOT_ERROR_INVALID_ARGUMENT);
    EXPECT_STRNE(gpu_kernels_last_error(), "");
  }
  EXPECT_EQ(gpu_kernels_vector_add_config_name(2), nullptr);
}

// Every function entry of a manifest (an object with "variant_id" and "launch"), wherever the
// manifest nests it.
void collectFunctions(const nlohmann::json &value, std::vector<const nlohmann::json *> *out) {
  if (value.is_object() && value.contains("variant_id") && value.contains("launch"))
    out->push_back(&value);
  if (value.is_structured())
    for (const auto &item : value) collectFunctions(item, out);
}

const nlohmann::json *findFunction(const std::vector<const nlohmann::json *> &functions,
                                   std::string_view variant_prefix) {
  for (const nlohmann::json *f : functions)
    if (f->at("variant_id").get_ref<const std::string &>().starts_with(variant_prefix)) return f;
  return nullptr;
}

// The launch facts these tests rely on, as the libraries record them: if Triton stops asking
// for scratch or clusters, the scratch and cluster tests would pass without testing anything.
// Needs no GPU, so it runs everywhere.
TEST(LibraryManifest, HasTheLaunchFactsTheGpuTestsRelyOn) {
  EXPECT_STRNE(gpu_kernels_version(), "");
  for (const char *text : {gpu_kernels_manifest(), gpu_hopper_manifest()})
    ASSERT_FALSE(nlohmann::json::parse(text, nullptr, false).is_discarded()) << "not JSON";
  nlohmann::json kernels = nlohmann::json::parse(gpu_kernels_manifest());
  nlohmann::json hopper = nlohmann::json::parse(gpu_hopper_manifest());
  std::vector<const nlohmann::json *> functions;
  collectFunctions(kernels, &functions);
  collectFunctions(hopper, &functions);

  const nlohmann::json *tma = findFunction(functions, "tma_scale.sm90a.");
  ASSERT_NE(tma, nullptr);
  EXPECT_GT(tma->at("launch").at("global_scratch").at("size").get<int>(), 0);
  const nlohmann::json *big = findFunction(functions, "big_shared.sm90a.");
  ASSERT_NE(big, nullptr);
  EXPECT_GT(big->at("launch").at("shared").get<int>(), 48 * 1024);
  for (const char *cluster : {"vector_add_cluster.sm90a.", "matmul_cluster.sm90a."}) {
    const nlohmann::json *f = findFunction(functions, cluster);
    ASSERT_NE(f, nullptr) << cluster;
    EXPECT_EQ(f->at("launch").at("cluster_dims"), nlohmann::json::parse("[2, 1, 1]")) << cluster;
  }
  std::printf("[ figure   ] manifest: tma_scale sm_90a global scratch %s bytes per program, "
              "big_shared sm_90a shared %s bytes, clusters [2, 1, 1], version %s\n",
              tma->at("launch").at("global_scratch").at("size").dump().c_str(),
              big->at("launch").at("shared").dump().c_str(), gpu_kernels_version());
}

}  // namespace
}  // namespace tta::gpu
