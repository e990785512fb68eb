// The readers in contract/ of the files between the tools that have no test file of their own:
// index files (contract/index_file.h), the frontend's answers as cached (contract/
// compile_answer.h), and reading a file another tool named (contract/read_file.h). Each refuses
// what its writer never writes, naming the field.
#include "contract/compile_answer.h"
#include "contract/index_file.h"
#include "contract/read_file.h"

#include "test_directory.h"

#include <gtest/gtest.h>

#include <sys/stat.h>

#include <fstream>

namespace tta {
namespace {

using nlohmann::json;

const std::string kNotAName = " is not a C identifier (ASCII letters, digits and '_', not "
                              "starting with a digit), so it cannot be a name in generated C";

/// \p doc with \p pointer set to \p value (a discarded value removes it).
json with(json doc, const char *pointer, const json &value) {
  json::json_pointer at(pointer);
  if (value.is_discarded())
    doc[at.parent_pointer()].erase(at.back());
  else
    doc[at] = value;
  return doc;
}

// --- Index files -------------------------------------------------------------------------------

IndexFile exampleIndex() {
  IndexFile index;
  index.metadata = {"add.sm90a.0123456789ab.json", "../other/add.sm80.0123456789ab.json"};
  index.variantsFrom = VariantsFrom{3, 2, 1, true};
  return index;
}

std::string indexError(const json &doc) {
  auto parsed = parseIndex(doc);
  return parsed ? std::string("accepted") : parsed.error().message;
}

TEST(IndexFile, RoundTrips) {
  auto parsed = parseIndex(toJson(exampleIndex()));
  ASSERT_TRUE(parsed) << parsed.error().message;
  EXPECT_EQ(*parsed, exampleIndex());
  IndexFile bare;
  bare.metadata = {"a.json"};
  auto withoutOrigins = parseIndex(toJson(bare));
  ASSERT_TRUE(withoutOrigins) << withoutOrigins.error().message;
  EXPECT_FALSE(withoutOrigins->variantsFrom);
}

TEST(IndexFile, ListsOnlyMetadataFileNames) {
  const json doc = toJson(exampleIndex());
  EXPECT_EQ(indexError(with(doc, "/metadata/0", "/dev/zero")),
            R"(metadata[0]: "/dev/zero" is not a metadata file name (<...>.json))");
  EXPECT_EQ(indexError(with(doc, "/metadata/1", "a.json\n")),
            R"(metadata[1]: "a.json\n" holds a line break or another control character)");
  EXPECT_EQ(indexError(with(doc, "/metadata/1", 7)), "metadata[1]: expected a string, got 7");
  EXPECT_EQ(indexError(with(doc, "/schema_version", 2)),
            "schema_version 2 is newer than this tool supports (1); update triton-aot");
  EXPECT_EQ(indexError(with(doc, "/schema", "triton-aot-kernel")),
            R"(schema: expected "triton-aot-index", got "triton-aot-kernel")");
  EXPECT_EQ(indexError(with(doc, "/variants_from/local", -1)),
            "variants_from.local: expected an unsigned integer, got -1");
  EXPECT_EQ(indexError(with(doc, "/variants_from/remote_cache", "yes")),
            R"(variants_from.remote_cache: expected true or false, got "yes")");
}

// --- Reading a file a tool named ---------------------------------------------------------------

class ReadToolFile : public testing_support::TestDirectory {};

TEST_F(ReadToolFile, ReadsARegularFileAndRefusesDevicesFifosDirectoriesAndGiants) {
  std::ofstream(dir_ / "a.json") << "{}";
  auto text = readToolFile(dir_ / "a.json", 16);
  ASSERT_TRUE(text) << text.error().message;
  EXPECT_EQ(*text, "{}");

  auto device = readToolFile("/dev/zero", kMaxToolFileBytes, "index.json");
  ASSERT_FALSE(device);   // would never end
  EXPECT_EQ(device.error().message, "cannot read '/dev/zero': not a regular file");
  EXPECT_EQ(device.error().file, "index.json");

  ASSERT_EQ(::mkfifo((dir_ / "fifo.json").c_str(), 0600), 0);
  auto fifo = readToolFile(dir_ / "fifo.json", kMaxToolFileBytes);   // would wait for a writer
  ASSERT_FALSE(fifo);
  EXPECT_EQ(fifo.error().message, "cannot read '" + (dir_ / "fifo.json").string() +
                                      "': not a regular file");

  EXPECT_FALSE(readToolFile(dir_, kMaxToolFileBytes));
  auto giant = readToolFile(dir_ / "a.json", 1);
  ASSERT_FALSE(giant);
  EXPECT_EQ(giant.error().message, "cannot read '" + (dir_ / "a.json").string() +
                                       "': 2 bytes, more than such a file has (at most 1)");
  EXPECT_FALSE(readToolFile(dir_ / "missing.json", kMaxToolFileBytes));
}

// --- The frontend's answers, as a cache hands them over ----------------------------------------

/// A describe answer for add_kernel(x_ptr, n, BLOCK: tl.constexpr = 1024) with a heuristic and
/// an autotune decorator, as the worker gives it.
json describeAnswer() {
  return json::parse(R"json({
    "ok": true, "function": "add_kernel", "dialect": "triton", "file": "/src/add.py", "line": 3,
    "params": [{"name": "x_ptr", "constexpr": false, "annotation": null},
               {"name": "n", "constexpr": false, "annotation": null},
               {"name": "BLOCK", "constexpr": true, "annotation": "tl.constexpr",
                "default": {"type": "int", "value": 1024}}],
    "jit_functions": ["add_kernel"], "deps": ["/src/add.py"],
    "do_not_specialize": [], "do_not_specialize_on_alignment": [],
    "heuristics": [{"name": "BLOCK", "file": "/src/add.py", "line": 2,
                    "source": "@triton.heuristics({'BLOCK': lambda args: 64})",
                    "arg": "args", "expression": "64"}],
    "autotune": {"configs": [{"values": [["BLOCK", "128"], ["num_warps", "4"]],
                              "kwargs": ["BLOCK"], "pre_hook": null}],
                 "key": ["n"], "reset_to_zero": [], "restore_value": [],
                 "prune": null, "tuning_hooks": [], "notes": []}})json");
}

json compileAnswer() {
  json answer = json::parse(R"json({
    "ok": true, "triton_version": "3.6.0", "entry": "add_kernel", "image_arch": "sm_90a",
    "metadata": {"name": "add_kernel", "num_warps": 4, "warp_size": 32, "shared": 0,
                 "num_ctas": 1, "num_stages": 3, "cluster_dims": [1, 1, 1],
                 "global_scratch_size": 0, "global_scratch_align": 1,
                 "profile_scratch_size": 0, "profile_scratch_align": 1, "tmem_size": 0,
                 "launch_pdl": false, "launch_cooperative_grid": false,
                 "hash": "0123abcd", "triton_version": "3.6.0"},
    "trailing_params": ["global_scratch", "profile_scratch"],
    "deps": ["/src/add.py"], "packages": [],
    "written": {"image": "/tmp/x.cubin", "ptx": "/tmp/x.ptx"},
    "source_name": "add.py"})json");
  answer["describe"] = describeAnswer();
  return answer;
}

std::string describeError(const json &answer) {
  Status s = checkDescribeAnswer(answer);
  return s ? std::string("accepted") : s.error().message;
}

std::string compileError(const json &answer) {
  Status s = checkCompileAnswer(answer);
  return s ? std::string("accepted") : s.error().message;
}

TEST(CompileAnswer, AcceptsWhatTheWorkerSends) {
  EXPECT_EQ(describeError(describeAnswer()), "accepted");
  EXPECT_EQ(compileError(compileAnswer()), "accepted");
  json refused = {{"refused", "out of resources: shared memory"},
                  {"describe", describeAnswer()},
                  {"deps", json::array()},
                  {"source_name", "add.py"}};
  Status s = checkRefusedAnswer(refused);
  EXPECT_TRUE(s) << s.error().message;
}

// A parameter name in a cached answer becomes a C parameter: "x_ptr\n#error X" would be code.
TEST(CompileAnswer, NamesThatReachGeneratedCAreCIdentifiers) {
  const json injected = "x_ptr\n#error X";
  EXPECT_EQ(describeError(with(describeAnswer(), "/params/0/name", injected)),
            R"(params[0].name: "x_ptr\n#error X")" + kNotAName);
  EXPECT_EQ(compileError(with(compileAnswer(), "/describe/params/2/name", "BLOCK)")),
            R"x(describe.params[2].name: "BLOCK)")x" + kNotAName);
  EXPECT_EQ(compileError(with(compileAnswer(), "/entry", "add\"); x(); (\"")),
            R"(entry: "add\"); x(); (\"")" + kNotAName);
  EXPECT_EQ(compileError(with(compileAnswer(), "/metadata/name", "add kernel")),
            R"(metadata.name: "add kernel")" + kNotAName);
  EXPECT_EQ(describeError(with(describeAnswer(), "/heuristics/0/name", "B\nL")),
            R"(heuristics[0].name: "B\nL")" + kNotAName);
  EXPECT_EQ(describeError(with(describeAnswer(), "/autotune/key/0", "n;")),
            R"(autotune.key[0]: "n;")" + kNotAName);
  EXPECT_EQ(describeError(with(describeAnswer(), "/autotune/configs/0/values/0/0", "BLOCK=1 X")),
            R"(autotune.configs[0].values[0][0]: "BLOCK=1 X")" + kNotAName);
  EXPECT_EQ(compileError(with(compileAnswer(), "/trailing_params/1", "evil")),
            R"(trailing_params[1]: expected "global_scratch" or "profile_scratch", got "evil")");
}

// A name C cannot take is the kernel's own (Python allows "n\u00e9"): a usage error. Anything
// else no worker of this triton-aot-cc answers: an internal error (or a damaged cache entry).
TEST(CompileAnswer, ANameIsAUsageErrorAnythingElseAnInternalError) {
  Status name = checkDescribeAnswer(with(describeAnswer(), "/params/1/name", "n\u00e9"));
  ASSERT_FALSE(name);
  EXPECT_EQ(name.error().code, ExitCode::UsageError);
  Status type = checkDescribeAnswer(with(describeAnswer(), "/params", "x_ptr"));
  ASSERT_FALSE(type);
  EXPECT_EQ(type.error().code, ExitCode::InternalError);
  EXPECT_EQ(type.error().message, R"(params: expected an array, got "x_ptr")");
}

TEST(CompileAnswer, TypesAndRangesAreChecked) {
  EXPECT_EQ(compileError(with(compileAnswer(), "/metadata/shared", -1)),
            "metadata.shared: expected an unsigned integer, got -1");
  EXPECT_EQ(compileError(with(compileAnswer(), "/metadata/num_warps", 0)),
            "metadata.num_warps: expected an integer >= 1, got 0");
  EXPECT_EQ(compileError(with(compileAnswer(), "/metadata/cluster_dims", {1, 1})),
            "metadata.cluster_dims: expected three integers, got [1,1]");
  EXPECT_EQ(compileError(with(compileAnswer(), "/metadata/hash", "../x")),
            R"(metadata.hash: expected lower-case hex digits, got "../x")");
  EXPECT_EQ(compileError(with(compileAnswer(), "/metadata", json(json::value_t::discarded))),
            "metadata: missing required field");
  EXPECT_EQ(compileError(with(compileAnswer(), "/deps/0", 5)), "deps[0]: expected a string, got 5");
  EXPECT_EQ(compileError(with(compileAnswer(), "/image_arch", "sm_90a\n")),
            R"(image_arch: "sm_90a\n" holds a line break or another control character)");
  EXPECT_EQ(describeError(with(describeAnswer(), "/params/0/hint", 8)),
            "params[0].hint: expected 0, 1 or 16, got 8");
  EXPECT_EQ(describeError(with(describeAnswer(), "/params/2/default/value", "1024")),
            R"(params[2].default.value: expected a value of type int, got "1024")");
  EXPECT_EQ(describeError(with(describeAnswer(), "/dialect", "cuda")),
            R"(dialect: expected one of triton, gluon; got "cuda")");
  EXPECT_EQ(compileError(with(compileAnswer(), "/describe", json(json::value_t::discarded))),
            "describe: missing required field");
}

} // namespace
} // namespace tta

namespace tta {
namespace {

// The cache's compile-time records (orderLongestFirst): a number of milliseconds, at most a day.
TEST(CompileTimeRecord, IsMillisecondsUpToADay) {
  auto read = [](const char *text) { return readCompileTimeRecord(nlohmann::json::parse(text)); };
  auto ok = read(R"({"compile_ms": 1270})");
  ASSERT_TRUE(ok) << ok.error().message;
  EXPECT_EQ(*ok, 1270u);
  for (const char *bad : {R"({"compile_ms": -1})", R"({"compile_ms": "12"})", R"({})", R"([])",
                          R"({"compile_ms": 86400001})"}) {
    auto r = read(bad);
    ASSERT_FALSE(r) << bad;
    EXPECT_EQ(r.error().message.rfind("compile-time record: ", 0), 0u) << r.error().message;
  }
}

} // namespace
} // namespace tta
