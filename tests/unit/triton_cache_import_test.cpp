// Importing Triton's autotune cache (tuner/import): the files each supported Triton writes
// (tests/data/triton_autotune_cache, written by Triton's own Autotuner.check_disk_cache), config
// matching, ms -> us, what is skipped with a warning and what is an error naming file and member.
#include "tuner/import/import_command.h"
#include "tuner/import/triton_cache_import.h"

#include "test_directory.h"

#include <gtest/gtest.h>

#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace tta {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

const std::string kData = std::string(TTA_TEST_DATA_DIR) + "/triton_autotune_cache";

/// A function of kernel mm built for \p target, as triton-aot-ld lists it.
json builtFunction(const std::string &target) {
  const std::string tag = target == "cuda:80" ? "sm80" : "sm90a";
  json scratch = {{"size", 0}, {"align", 1}};
  return {{"target", target},
          {"variant_id", "mm." + tag + ".0123456789ab"},
          {"entry", "mm"},
          {"triton_version", "3.6.0"},
          {"launch",
           {{"num_warps", 4}, {"warp_size", 32}, {"block", {128, 1, 1}}, {"shared", 0},
            {"num_ctas", 1}, {"cluster_dims", {1, 1, 1}}, {"global_scratch", scratch},
            {"profile_scratch", scratch}, {"cooperative", false}, {"pdl", false},
            {"tmem_size", 0}}},
          {"resources",
           {{"registers", 32}, {"sgprs", nullptr}, {"spills", 0}, {"static_shared", 0}}},
          {"image",
           {{"kind", "cubin"}, {"raw_size", 1000}, {"stored_size", 1000}, {"compressed", false},
            {"sha256", std::string(64, 'a')}}},
          {"ptx", nullptr}};
}

/// Config \p index of kernel mm, built for both targets (or refused on \p refusedOn).
json libraryConfig(int index, const std::string &name, json constexprs, int warps, int stages,
                   json options = {{"num_ctas", 1}}, std::string refusedOn = "") {
  json functions = json::array();
  for (std::string target : {"cuda:80", "cuda:90a"}) {
    json function = builtFunction(target);
    if (target == refusedOn)
      function = {{"target", target}, {"refused", "needs more shared memory"}};
    functions.push_back(function);
  }
  return {{"index", index},
          {"name", name},
          {"named", true},
          {"constexprs", constexprs},
          {"num_warps", warps},
          {"num_stages", stages},
          {"options", options},
          {"variants", {{{"hints", json::object()}, {"condition", "1"}, {"functions", functions}}}}};
}

/// The library the fixtures' `mm` was built into: the decorator's three configs.
json manifest() {
  json params = json::array();
  for (auto [name, type, kind, cType, size] :
       {std::tuple{"a_ptr", "*fp16", "pointer", "const void *", 8},
        {"b_ptr", "*fp16", "pointer", "const void *", 8},
        {"c_ptr", "*fp32", "pointer", "const void *", 8},
        {"M", "i32", "scalar", "int32_t", 4},
        {"N", "i32", "scalar", "int32_t", 4},
        {"K", "i32", "scalar", "int32_t", 4}})
    params.push_back({{"name", name}, {"c_name", name}, {"type", type}, {"kind", kind},
                      {"c_type", cType}, {"size", size}});
  json configs = {
      libraryConfig(0, "BLOCK_M128_BLOCK_N64_w8_s3", {{"BLOCK_M", 128}, {"BLOCK_N", 64}}, 8, 3),
      libraryConfig(1, "BLOCK_M64_BLOCK_N64_w4_s3", {{"BLOCK_M", 64}, {"BLOCK_N", 64}}, 4, 3),
      libraryConfig(2, "BLOCK_M64_BLOCK_N32_w4_s4_r128", {{"BLOCK_M", 64}, {"BLOCK_N", 32}}, 4, 4,
                    {{"num_ctas", 1}, {"maxnreg", 128}})};
  return {{"schema", "triton-aot-library"},
          {"schema_version", 1},
          {"generator", "triton-aot-ld 0.1.0"},
          {"name", "mmlib"},
          {"prefix", "mmlib"},
          {"triton_versions", {"3.6.0"}},
          {"kernels",
           {{{"name", "mm"},
             {"function", "mm"},
             {"source", "mm.py"},
             {"params", params},
             {"constexpr_params", {"BLOCK_M", "BLOCK_N"}},
             {"specialized_to_one_params", json::array()},
             {"grid", {"cdiv(M, BLOCK_M)", "cdiv(N, BLOCK_N)", "1"}},
             {"global_scratch_arg", true},
             {"profile_scratch_arg", true},
             {"targets", {"cuda:80", "cuda:90a"}},
             {"configs", configs},
             {"autotune",
              {{"key", {"M", "N"}},
               {"reset_to_zero", json::array()},
               {"restore_value", json::array()},
               {"configs", "decorator"},
               {"dropped_pre_hooks", json::array()}}}}}}};
}

TritonCacheImportOptions mmOptions() {
  TritonCacheImportOptions options;
  options.kernel = "mm";
  options.target = "cuda:90a";
  return options;
}

json cachedConfig(json kwargs, int warps, int stages, json maxnreg = nullptr) {
  return {{"kwargs", kwargs},      {"num_warps", warps}, {"num_ctas", 1},
          {"num_stages", stages},  {"maxnreg", maxnreg}, {"pre_hook", nullptr},
          {"ir_override", nullptr}};
}

/// A cache entry as text, the way json.dumps writes it (inf as Infinity).
std::string cacheText(json key, std::vector<std::pair<json, std::string>> timings) {
  std::string text = "{\"key\": " + key.dump() + ", \"configs_timings\": [";
  for (std::size_t i = 0; i < timings.size(); ++i)
    text += (i ? ", [" : "[") + timings[i].first.dump() + ", " + timings[i].second + "]";
  return text + "]}";
}

TritonCacheEntry entry(const std::string &text, const std::string &file = "x/mm.autotune.json") {
  auto parsed = parseTritonAutotuneCache(text, file);
  EXPECT_TRUE(parsed) << (parsed ? "" : parsed.error().message);
  return parsed ? *parsed : TritonCacheEntry{};
}

std::string fp16Mm(json m = 512, json n = 1024) {
  return cacheText(
      {m, n, "torch.float16", "torch.float16", "torch.float32"},
      {{cachedConfig({{"BLOCK_M", 128}, {"BLOCK_N", 64}}, 8, 3), "[0.02, 0.02, 0.03]"},
       {cachedConfig({{"BLOCK_M", 64}, {"BLOCK_N", 64}}, 4, 3), "[0.01, 0.01, 0.02]"}});
}

Diagnostic importError(const std::vector<TritonCacheEntry> &entries, json library = manifest(),
                       TritonCacheImportOptions options = mmOptions()) {
  auto imported = importTritonAutotuneEntries(entries, library, options);
  EXPECT_FALSE(imported);
  return imported ? Diagnostic{} : imported.error();
}

// --- The files each Triton writes ----------------------------------------------------------

class TritonVersionFormat : public testing::TestWithParam<std::string> {};

TEST_P(TritonVersionFormat, ImportsTheFilesThatTritonsAutotunerWrote) {
  auto imported = importTritonAutotuneCache({kData + "/" + GetParam()}, manifest(), mmOptions());
  ASSERT_TRUE(imported) << imported.error().message;
  EXPECT_EQ(imported->filesRead, 3u); // other_kernel.autotune.json is not read
  ASSERT_EQ(imported->table.kernels.size(), 1u);
  const TunedKernel &kernel = imported->table.kernels[0];
  EXPECT_EQ(kernel.kernel, "mm");
  EXPECT_EQ(kernel.key, (std::vector<std::string>{"M", "N"}));
  ASSERT_EQ(kernel.targets.size(), 1u);
  const TunedTarget &target = kernel.targets[0];
  EXPECT_EQ(target.target, "cuda:90a");
  EXPECT_EQ(target.source, "triton-autotune-cache");
  EXPECT_EQ(target.library, "mmlib");
  EXPECT_EQ(target.tritonVersion, "3.6.0");
  ASSERT_EQ(target.shapes.size(), 2u);

  const TunedShape &small = target.shapes[0];
  EXPECT_EQ(small.key, (std::vector<std::int64_t>{512, 1024}));
  EXPECT_EQ(small.best, "BLOCK_M64_BLOCK_N64_w4_s3");
  ASSERT_EQ(small.timesUs.size(), 3u);
  EXPECT_DOUBLE_EQ(*small.timesUs.at("BLOCK_M128_BLOCK_N64_w8_s3"), 11.2);
  EXPECT_DOUBLE_EQ(*small.timesUs.at("BLOCK_M64_BLOCK_N64_w4_s3"), 9.8);
  EXPECT_FALSE(small.timesUs.at("BLOCK_M64_BLOCK_N32_w4_s4_r128")); // Infinity: it failed

  const TunedShape &large = target.shapes[1];
  EXPECT_EQ(large.key, (std::vector<std::int64_t>{4096, 4096}));
  EXPECT_EQ(large.best, "BLOCK_M128_BLOCK_N64_w8_s3");
  EXPECT_DOUBLE_EQ(*large.timesUs.at("BLOCK_M64_BLOCK_N32_w4_s4_r128"), 610.0);
  // To the nanosecond: no binary-fraction digits in the table.
  EXPECT_EQ(json(*small.timesUs.at("BLOCK_M128_BLOCK_N64_w8_s3")).dump(), "11.2");

  // The bf16 entry tuned another signature than the library's fp16 kernel.
  ASSERT_EQ(imported->warnings.size(), 1u);
  EXPECT_NE(imported->warnings[0].find(": skipped: tuned for the dtypes (torch.bfloat16, "
                                       "torch.bfloat16, torch.float32), the library's kernel "
                                       "'mm' takes (torch.float16, torch.float16, torch.float32)"),
            std::string::npos)
      << imported->warnings[0];

  // What the importer makes is a table the tuning library reads back unchanged.
  auto reread = parseTuningTable(tuningTableJson(imported->table), "imported");
  ASSERT_TRUE(reread) << reread.error().message;
  EXPECT_EQ(tuningTableJson(*reread), tuningTableJson(imported->table));
}

// The format is the same from 3.5.1 to 3.9.0 (check_disk_cache and Config.__dict__ did not
// change; 3.7.x has 3.6.0's autotuner.py byte for byte): a fixture per end of the range, 3.6.0
// (the integration tests' oldest) and 3.8.0.
INSTANTIATE_TEST_SUITE_P(Triton, TritonVersionFormat,
                         testing::Values("3.5.1", "3.6.0", "3.8.0", "3.9.0"),
                         [](const auto &param) {
                           std::string name = "v" + param.param;
                           std::replace(name.begin(), name.end(), '.', '_');
                           return name;
                         });

TEST(TritonCacheFile, ReadsPythonsInfinityAndNaNOutsideStringsOnly) {
  auto parsed = parseTritonAutotuneCache(
      cacheText({512, "torch.float16"},
                {{cachedConfig({{"S", "Infinity NaN"}}, 4, 3), "[Infinity, Infinity, Infinity]"},
                 {cachedConfig({{"S", "x"}}, 4, 3), "[NaN, -Infinity, 1e-3]"},
                 {cachedConfig({{"S", "y"}}, 4, 3), "0.5"}}),
      "d/k.autotune.json");
  ASSERT_TRUE(parsed) << parsed.error().message;
  EXPECT_EQ(parsed->function, "k");
  ASSERT_EQ(parsed->configs.size(), 3u);
  EXPECT_EQ(parsed->configs[0].kwargs["S"], "Infinity NaN");
  EXPECT_FALSE(parsed->configs[0].medianMs);
  EXPECT_FALSE(parsed->configs[1].medianMs);
  EXPECT_DOUBLE_EQ(*parsed->configs[2].medianMs, 0.5); // a custom do_bench's one number
}

TEST(TritonCacheFile, FindsCacheFilesUnderDirectoriesAndTakesNamedFilesAsGiven) {
  auto files = findTritonAutotuneCacheFiles({kData + "/3.9.0", kData + "/generate.py"});
  ASSERT_TRUE(files) << files.error().message;
  ASSERT_EQ(files->size(), 5u);
  EXPECT_EQ(files->back(), kData + "/generate.py");
  auto missing = findTritonAutotuneCacheFiles({kData + "/nowhere"});
  ASSERT_FALSE(missing);
  EXPECT_EQ(missing.error().file, kData + "/nowhere");
  EXPECT_EQ(missing.error().message, "no such file or directory");
}

// --- Malformed files: each error names the file and the member ------------------------------

struct Malformed {
  std::string text;
  std::string message;
};

class MalformedCacheFile : public testing::TestWithParam<Malformed> {};

TEST_P(MalformedCacheFile, IsAnErrorNamingTheFileAndMember) {
  auto parsed = parseTritonAutotuneCache(GetParam().text, "c/mm.autotune.json");
  ASSERT_FALSE(parsed);
  EXPECT_EQ(parsed.error().file, "c/mm.autotune.json");
  EXPECT_EQ(parsed.error().message, GetParam().message);
}

INSTANTIATE_TEST_SUITE_P(
    Cases, MalformedCacheFile,
    testing::Values(
        Malformed{"{\"key\": [1", "not JSON: expected a Triton autotune cache file"},
        Malformed{"[]", "expected an object with \"key\" and \"configs_timings\""},
        Malformed{"{\"configs_timings\": []}", "key: expected the tuning key, a list"},
        Malformed{"{\"key\": [1]}", "configs_timings: expected a list of [config, timings]"},
        Malformed{"{\"key\": [1], \"configs_timings\": [[{\"kwargs\": {}}]]}",
                  "configs_timings[0]: expected [config, timings], got [{\"kwargs\":{}}]"},
        Malformed{"{\"key\": [1], \"configs_timings\": [[{\"num_warps\": 4}, 1.0]]}",
                  "configs_timings[0][0].kwargs: expected an object of meta-parameters"},
        Malformed{"{\"key\": [1], \"configs_timings\": [[{\"kwargs\": {}}, 1.0], "
                  "[{\"kwargs\": {}, \"num_warps\": \"4\"}, 1.0]]}",
                  "configs_timings[1][0].num_warps: expected an integer, got \"4\""},
        Malformed{
            "{\"key\": [1], \"configs_timings\": [[{\"kwargs\": {}, \"maxnreg\": 1.5}, 1.0]]}",
            "configs_timings[0][0].maxnreg: expected an integer or null, got 1.5"},
        Malformed{"{\"key\": [1], \"configs_timings\": [[{\"kwargs\": {}}, \"fast\"]]}",
                  "configs_timings[0][1]: expected milliseconds or a list of them, got \"fast\""},
        Malformed{"{\"key\": [1], \"configs_timings\": [[{\"kwargs\": {}}, [0.1, \"x\"]]]}",
                  "configs_timings[0][1][1]: expected milliseconds, got \"x\""},
        Malformed{"{\"key\": [1], \"configs_timings\": [[{\"kwargs\": {}}, [-1.0]]]}",
                  "configs_timings[0][1]: expected milliseconds >= 0, got -1.000000"}));

// --- Keys ----------------------------------------------------------------------------------

TEST(TritonCacheImport, AKeyShorterThanTheAutotuneKeyIsAnErrorNamingTheFile) {
  Diagnostic error = importError({entry(cacheText({512}, {}), "c/mm.autotune.json")});
  EXPECT_EQ(error.file, "c/mm.autotune.json");
  EXPECT_EQ(error.message, "key: [512] does not fit the autotune key of 'mm' (M, N): expected a "
                           "value per name, then dtype strings");
}

TEST(TritonCacheImport, AKeyWithMoreValuesThanNamesIsAnErrorNamingTheFile) {
  Diagnostic error = importError({entry(cacheText({512, 1024, 64, "torch.float16"}, {}))});
  EXPECT_EQ(error.file, "x/mm.autotune.json");
  EXPECT_EQ(error.message, "key: [512,1024,64,\"torch.float16\"] does not fit the autotune key of "
                           "'mm' (M, N): expected a value per name, then dtype strings");
}

TEST(TritonCacheImport, ANonIntegerKeyValueIsAnError) {
  Diagnostic error = importError({entry(fp16Mm(512, 0.5))});
  EXPECT_EQ(error.message, "key[1]: expected an integer for 'N', got 0.5");
}

TEST(TritonCacheImport, AConstexprKeyNameFiltersEntriesAndIsNotATableKey) {
  json library = manifest();
  json &kernel = library["kernels"][0];
  kernel["autotune"]["key"] = {"M", "N", "HEAD_DIM"};
  kernel["constexpr_params"].push_back("HEAD_DIM");
  for (json &config : kernel["configs"])
    config["constexprs"]["HEAD_DIM"] = 64;
  auto text = [](int headDim) {
    return cacheText({512, 1024, headDim, "torch.float16", "torch.float16", "torch.float32"},
                     {{cachedConfig({{"BLOCK_M", 64}, {"BLOCK_N", 64}}, 4, 3), "[0.01]"}});
  };
  auto imported = importTritonAutotuneEntries(
      {entry(text(64), "a/mm.autotune.json"), entry(text(128), "b/mm.autotune.json")}, library,
      mmOptions());
  ASSERT_TRUE(imported) << imported.error().message;
  EXPECT_EQ(imported->table.kernels[0].key, (std::vector<std::string>{"M", "N"}));
  EXPECT_EQ(imported->table.kernels[0].targets[0].shapes.size(), 1u);
  EXPECT_EQ(imported->warnings,
            (std::vector<std::string>{"b/mm.autotune.json: skipped: tuned for HEAD_DIM=128, the "
                                      "library's kernel 'mm' has HEAD_DIM=64"}));
}

TEST(TritonCacheImport, AKeyNameThatIsNotAnIntegerParameterIsAnError) {
  json library = manifest();
  library["kernels"][0]["autotune"]["key"] = {"a_ptr"};
  Diagnostic error = importError({}, library);
  EXPECT_EQ(error.message, "manifest: kernel 'mm': the key name 'a_ptr' is a '*fp16' parameter; "
                           "a tuning table keys on integer parameters");
}

TEST(TritonCacheImport, OneKeyInTwoFilesIsAnError) {
  Diagnostic error =
      importError({entry(fp16Mm(), "a/mm.autotune.json"), entry(fp16Mm(), "b/mm.autotune.json")});
  EXPECT_EQ(error.file, "b/mm.autotune.json");
  EXPECT_EQ(error.message, "key [512, 1024] is tuned in this file and in a/mm.autotune.json "
                           "(another Triton, environment or config list): pass one of them");
}

TEST(TritonCacheImport, DtypesTheManifestCannotNameMustAgreeOrBeGiven) {
  json library = manifest();
  library["kernels"][0]["params"][0]["type"] = "*fp8e4b15"; // torch has no such dtype
  std::string bf16 =
      cacheText({4096, 1024, "torch.bfloat16", "torch.float16", "torch.float32"},
                {{cachedConfig({{"BLOCK_M", 64}, {"BLOCK_N", 64}}, 4, 3), "[0.01]"}});
  std::vector<TritonCacheEntry> entries = {entry(fp16Mm(), "a/mm.autotune.json"),
                                           entry(bf16, "b/mm.autotune.json")};
  Diagnostic error = importError(entries, library);
  EXPECT_EQ(error.message, "tuned for the dtypes (torch.bfloat16, torch.float16, torch.float32), "
                           "a/mm.autotune.json for (torch.float16, torch.float16, torch.float32): "
                           "name the kernel's dtypes to pick one");
  TritonCacheImportOptions options = mmOptions();
  options.dtypes = {"torch.bfloat16", "torch.float16", "torch.float32"};
  auto imported = importTritonAutotuneEntries(entries, library, options);
  ASSERT_TRUE(imported) << imported.error().message;
  ASSERT_EQ(imported->table.kernels[0].targets[0].shapes.size(), 1u);
  EXPECT_EQ(imported->table.kernels[0].targets[0].shapes[0].key,
            (std::vector<std::int64_t>{4096, 1024}));
}

// --- Configs ---------------------------------------------------------------------------------

TEST(TritonCacheImport, MatchesConfigsByEveryValueAndConvertsMillisecondsToMicroseconds) {
  json library = manifest();
  // A kwarg the library keeps as an option (AMD's waves_per_eu), and a library constexpr that is
  // no config value (the kernel's own): both still match.
  library["kernels"][0]["configs"].push_back(libraryConfig(
      3, "BLOCK_M32_BLOCK_N32_waves_per_eu2_w4_s2", {{"BLOCK_M", 32}, {"BLOCK_N", 32}, {"ACT", ""}}, 4,
      2, {{"num_ctas", 1}, {"waves_per_eu", 2}}));
  auto text = cacheText(
      {512, 1024, "torch.float16", "torch.float16", "torch.float32"},
      {{cachedConfig({{"BLOCK_M", 32}, {"BLOCK_N", 32}, {"waves_per_eu", 2}}, 4, 2),
        "[0.0015, 0.001, 0.002]"},
       {cachedConfig({{"BLOCK_M", 64}, {"BLOCK_N", 32}}, 4, 4, 128), "[0.25, 0.2, 0.3]"},
       {cachedConfig({{"BLOCK_M", 64}, {"BLOCK_N", 32}}, 4, 4), "[0.001, 0.001, 0.001]"},
       {cachedConfig({{"BLOCK_M", 64}, {"BLOCK_N", 64}}, 8, 3), "[0.001, 0.001, 0.001]"}});
  auto imported = importTritonAutotuneEntries({entry(text)}, library, mmOptions());
  ASSERT_TRUE(imported) << imported.error().message;
  const TunedShape &shape = imported->table.kernels[0].targets[0].shapes.at(0);
  ASSERT_EQ(shape.timesUs.size(), 2u);
  EXPECT_DOUBLE_EQ(*shape.timesUs.at("BLOCK_M32_BLOCK_N32_waves_per_eu2_w4_s2"), 1.5);
  EXPECT_DOUBLE_EQ(*shape.timesUs.at("BLOCK_M64_BLOCK_N32_w4_s4_r128"), 250.0);
  EXPECT_EQ(shape.best, "BLOCK_M32_BLOCK_N32_waves_per_eu2_w4_s2");
  // maxnreg and num_warps are part of a config's identity: these two are not the library's.
  ASSERT_EQ(imported->warnings.size(), 3u);
  EXPECT_EQ(imported->warnings[0],
            "x/mm.autotune.json: skipped the config (BLOCK_M=64, BLOCK_N=32, num_warps=4, "
            "num_stages=4): the library's kernel 'mm' has no config with these values");
  EXPECT_EQ(imported->warnings[1],
            "x/mm.autotune.json: skipped the config (BLOCK_M=64, BLOCK_N=64, num_warps=8, "
            "num_stages=3): the library's kernel 'mm' has no config with these values");
  EXPECT_EQ(imported->warnings[2],
            "x/mm.autotune.json: Triton's fastest config for key [512, 1024] (BLOCK_M=64, "
            "BLOCK_N=32, num_warps=4, num_stages=4) is not one the library runs on this target; "
            "best is 'BLOCK_M32_BLOCK_N32_waves_per_eu2_w4_s2'");
}

TEST(TritonCacheImport, BestIsTritonsChoiceComparingTheWholeTimingListOnATie) {
  auto text =
      cacheText({512, 1024, "torch.float16", "torch.float16", "torch.float32"},
                {{cachedConfig({{"BLOCK_M", 128}, {"BLOCK_N", 64}}, 8, 3), "[0.01, 0.009, 0.02]"},
                 {cachedConfig({{"BLOCK_M", 64}, {"BLOCK_N", 64}}, 4, 3), "[0.01, 0.008, 0.03]"}});
  auto imported = importTritonAutotuneEntries({entry(text)}, manifest(), mmOptions());
  ASSERT_TRUE(imported) << imported.error().message;
  EXPECT_EQ(imported->table.kernels[0].targets[0].shapes.at(0).best, "BLOCK_M64_BLOCK_N64_w4_s3");
}

TEST(TritonCacheImport, AConfigTheLibraryRefusesOnTheTargetHasNoTime) {
  json library = manifest();
  library["kernels"][0]["configs"][1] =
      libraryConfig(1, "BLOCK_M64_BLOCK_N64_w4_s3", {{"BLOCK_M", 64}, {"BLOCK_N", 64}}, 4, 3,
                    {{"num_ctas", 1}}, "cuda:90a");
  auto imported = importTritonAutotuneEntries({entry(fp16Mm())}, library, mmOptions());
  ASSERT_TRUE(imported) << imported.error().message;
  const TunedShape &shape = imported->table.kernels[0].targets[0].shapes.at(0);
  EXPECT_FALSE(shape.timesUs.at("BLOCK_M64_BLOCK_N64_w4_s3"));
  EXPECT_EQ(shape.best, "BLOCK_M128_BLOCK_N64_w8_s3");
  // On the other target the library runs it, and it is the fastest.
  TritonCacheImportOptions sm80 = mmOptions();
  sm80.target = "cuda:80";
  auto other = importTritonAutotuneEntries({entry(fp16Mm())}, library, sm80);
  ASSERT_TRUE(other) << other.error().message;
  EXPECT_EQ(other->table.kernels[0].targets[0].shapes.at(0).best, "BLOCK_M64_BLOCK_N64_w4_s3");
}

TEST(TritonCacheImport, NothingToImportIsAnErrorWithTheReasonsAsNotes) {
  std::string unknown =
      cacheText({512, 1024, "torch.float16", "torch.float16", "torch.float32"},
                {{cachedConfig({{"BLOCK_M", 16}, {"BLOCK_N", 16}}, 2, 2), "[0.01]"}});
  Diagnostic error = importError({entry(unknown)});
  EXPECT_EQ(error.message, "nothing to import for kernel 'mm' from 1 files of function 'mm'");
  ASSERT_EQ(error.notes.size(), 2u);
  EXPECT_EQ(error.notes[1], "x/mm.autotune.json: skipped: no config of the library has a time "
                            "for key [512, 1024]");
}

TEST(TritonCacheImport, FilesOfOtherFunctionsAreNotReadAndNoneLeftIsAnError) {
  json library = manifest();
  library["kernels"][0]["function"] = "matmul";
  auto none = importTritonAutotuneCache({kData + "/3.6.0"}, library, mmOptions());
  ASSERT_FALSE(none);
  EXPECT_EQ(none.error().message, "no autotune cache file of the function 'matmul' (kernel 'mm'): "
                                  "Triton names them matmul.autotune.json");
}

// --- The manifest ----------------------------------------------------------------------------

TEST(TritonCacheImport, TheKernelMustBeInTheManifestBuiltForTheTargetAndAutotuned) {
  TritonCacheImportOptions options = mmOptions();
  options.kernel = "mn";
  EXPECT_EQ(importError({}, manifest(), options).message,
            "manifest: no kernel named 'mn' (kernels: mm)");
  options = mmOptions();
  options.target = "hip:gfx942";
  EXPECT_EQ(importError({}, manifest(), options).message,
            "manifest: kernel 'mm' is not built for 'hip:gfx942' (its targets: \"cuda:80\", "
            "\"cuda:90a\")");
  json library = manifest();
  library["kernels"][0]["autotune"] = nullptr;
  EXPECT_EQ(importError({}, library).message,
            "manifest: kernel 'mm' is not @triton.autotune'd (no autotune.key): Triton caches "
            "no autotuning for it");
  EXPECT_EQ(importError({}, json{{"schema", "triton-aot-tuning"}}).message,
            "manifest: not a triton-aot library manifest (schema \"triton-aot-library\")");
  // The manifest is read by its one reader: a name no linker writes is refused.
  library = manifest();
  library["kernels"][0]["autotune"]["key"] = {"M\n#error X"};
  EXPECT_EQ(importError({}, library).message,
            "manifest: kernels[0].autotune.key[0]: \"M\\n#error X\" is not a C identifier (ASCII "
            "letters, digits and '_', not starting with a digit), so it cannot be a name in "
            "generated C");
}

// --- The command -----------------------------------------------------------------------------

class ImportCommand : public testing::Test {
protected:
  void SetUp() override {
    dir_ = testing_support::freshTestDirectory();
    std::ofstream(dir_ / "mmlib.json") << manifest().dump(2);
  }
  void TearDown() override {
    if (!HasFailure())
      fs::remove_all(dir_);
  }
  int run(std::vector<std::string> extra, const std::string &kernel = "mm") {
    std::vector<std::string> args = {"--import-triton-cache",
                                     kData + "/3.9.0",
                                     "--manifest",
                                     (dir_ / "mmlib.json").string(),
                                     "--kernel",
                                     kernel,
                                     "--target",
                                     "cuda:90a",
                                     "--output",
                                     output()};
    args.insert(args.end(), extra.begin(), extra.end());
    out_.str("");
    err_.str("");
    return tritonCacheImportMain(args, "triton-aot-tune", out_, err_);
  }
  std::string output() const { return (dir_ / "mm.tuning.json").string(); }

  fs::path dir_;
  std::ostringstream out_, err_;
};

TEST_F(ImportCommand, WritesTheTableAndMergesIntoAnExistingOne) {
  ASSERT_EQ(run({"--device-name", "NVIDIA H100 80GB HBM3"}), 0) << err_.str();
  EXPECT_EQ(out_.str(), "imported 2 shapes of kernel 'mm' for cuda:90a from 3 Triton autotune "
                        "cache files into " +
                            output() + "\n");
  EXPECT_NE(err_.str().find("triton-aot-tune: warning: "), std::string::npos);
  auto table = readTuningTable(output());
  ASSERT_TRUE(table) << table.error().message;
  EXPECT_EQ(table->kernels.at(0).targets.at(0).device, "NVIDIA H100 80GB HBM3");
  EXPECT_EQ(table->kernels.at(0).targets.at(0).libraryHash.size(), 64u);

  // Merged: a shape tuned elsewhere stays, the imported ones replace their keys.
  TunedShape extra{{64, 64}, {{"BLOCK_M64_BLOCK_N64_w4_s3", 1.0}}, "BLOCK_M64_BLOCK_N64_w4_s3"};
  table->kernels[0].targets[0].shapes.push_back(extra);
  std::ofstream(output()) << tuningTableJson(*table).dump(2);
  ASSERT_EQ(run({}), 0) << err_.str();
  auto merged = readTuningTable(output());
  ASSERT_TRUE(merged) << merged.error().message;
  EXPECT_EQ(merged->kernels.at(0).targets.at(0).shapes.size(), 3u);
}

TEST_F(ImportCommand, ReportsErrorsWithTheToolOrFileAndWritesNothing) {
  EXPECT_EQ(run({}, "nope"), 2);
  EXPECT_EQ(err_.str(),
            (dir_ / "mmlib.json").string() + ": error: no kernel named 'nope' (kernels: mm)\n");
  EXPECT_FALSE(fs::exists(output()));
  std::vector<std::string> noKernel = {"--import-triton-cache", kData};
  std::ostringstream out, err;
  EXPECT_EQ(tritonCacheImportMain(noKernel, "triton-aot-tune", out, err), 2);
  EXPECT_EQ(err.str(), "triton-aot-tune: error: --import-triton-cache needs --manifest\n");
}

TEST(ImportCommandOptions, GoOntoTheTunersAppBesideItsKernelOutputAndDevice) {
  // triton-aot-tune has --kernel (repeatable), --output and --device (an ordinal) of its own.
  CLI::App app;
  TritonCacheImportCommand command;
  int ordinal = 0;
  app.add_option("--kernel", command.kernels);
  app.add_option("--output", command.output);
  app.add_option("--device", ordinal);
  ASSERT_NO_THROW(addTritonCacheImportOptions(app, command));
  std::vector<std::string> args = {"--import-triton-cache",
                                   "a",
                                   "--import-triton-cache",
                                   "b",
                                   "--manifest",
                                   "m.json",
                                   "--kernel",
                                   "k1",
                                   "--kernel",
                                   "k2",
                                   "--target",
                                   "cuda:90a",
                                   "--dtypes",
                                   "torch.float16,torch.float32",
                                   "--device-name",
                                   "H100",
                                   "--output",
                                   "t.json",
                                   "--device",
                                   "1"};
  std::reverse(args.begin(), args.end());
  app.parse(args);
  EXPECT_TRUE(importRequested(command));
  EXPECT_EQ(command.cachePaths, (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(command.kernels, (std::vector<std::string>{"k1", "k2"}));
  EXPECT_EQ(command.dtypes, (std::vector<std::string>{"torch.float16", "torch.float32"}));
  EXPECT_EQ(command.deviceName, "H100");
  EXPECT_EQ(ordinal, 1);
}

} // namespace
} // namespace tta
