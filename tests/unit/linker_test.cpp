// link(): the five outputs, all or nothing.
#include "link_fixture.h"
#include "linker/inspect.h"
#include "linker/linker.h"
#include "linker/manifest.h"

#include <gmock/gmock.h>

#include <regex>

namespace tta::link::testing {
namespace {

using ::testing::HasSubstr;

class Link : public LinkFixture {
protected:
  std::vector<std::string> names() const {
    std::vector<std::string> out;
    if (fs::exists(dir_ / "out"))
      for (const auto &entry : fs::directory_iterator(dir_ / "out"))
        out.push_back(entry.path().filename().string());
    std::sort(out.begin(), out.end());
    return out;
  }
};

TEST_F(Link, WritesFiveOutputs) {
  LinkOptions o = options(writeAll("scale", {"cuda:80", "hip:gfx90a"}, defaultParams()), "demo");
  EXPECT_EQ(outputPaths(o)[0], dir_ / "out/demo.images");
  Status s = link(o);
  ASSERT_TRUE(s) << formatDiagnostic(s.error());
  EXPECT_THAT(names(), ::testing::ElementsAre("demo.c", "demo.h", "demo.images", "demo.images.S", "demo.json"));

  // The manifest file is the manifest embedded at the end of the blob.
  std::string manifest = readFile(dir_ / "out/demo.json");
  std::string blob = readFile(dir_ / "out/demo.images");
  ASSERT_FALSE(manifest.empty());
  EXPECT_EQ(manifest.back(), '\n');
  manifest.pop_back();
  EXPECT_NE(blob.find(manifest + '\0'), std::string::npos);
  auto parsed = parseLibraryManifest(nlohmann::json::parse(manifest));
  ASSERT_TRUE(parsed) << parsed.error().message;
  EXPECT_EQ(parsed->kernels.at(0).name, "scale");
  // The assembler file names the blob by its absolute path.
  EXPECT_THAT(readFile(dir_ / "out/demo.images.S"), HasSubstr((dir_ / "out/demo.images").string()));
  EXPECT_THAT(readFile(dir_ / "out/demo.h"), HasSubstr("demo_scale("));
}

TEST_F(Link, TheEmbeddedInventoryIsWhatInspectPrints) {
  for (bool compress : {false, true}) {   // compressed images add the "stored" column
    std::vector<std::string> inputs;
    for (auto [xHint, nHint] : {std::pair{16, 16}, {0, 0}})
      inputs = concat(inputs,
                      writeAll("scale", {"cuda:80", "hip:gfx90a"}, defaultParams(xHint, nHint)));
    LinkOptions o = options(inputs, "demo");
    o.compress = compress;
    Status s = link(o);
    ASSERT_TRUE(s) << formatDiagnostic(s.error());
    auto printed = inspectFile(dir_ / "out/demo.json");
    ASSERT_TRUE(printed) << printed.error().message;
    EXPECT_THAT(*printed, HasSubstr("library demo (prefix demo): 1 kernel, 1 config, 4 functions"));
    EXPECT_THAT(*printed, HasSubstr(compress ? "  bytes  stored\n" : "  bytes\n"));

    // demo_inventory() returns the NUL-terminated text at its offset in the blob.
    const std::string source = readFile(dir_ / "out/demo.c");
    std::smatch offset;
    ASSERT_TRUE(std::regex_search(
        source, offset,
        std::regex(R"(const char \*demo_inventory\(void\) \{ return \(const char \*\)\(demo_tta_blob \+ (\d+)\); \})")))
        << source;
    const std::string blob = readFile(dir_ / "out/demo.images");
    const std::size_t at = std::stoul(offset[1]);
    ASSERT_LT(at + printed->size(), blob.size());
    EXPECT_EQ(blob.substr(at, printed->size() + 1), *printed + '\0');
    EXPECT_THAT(readFile(dir_ / "out/demo.h"), HasSubstr("const char *demo_inventory(void);"));
  }
}

TEST_F(Link, AFailedLinkLeavesNothing) {
  LinkOptions o = options(writeAll("scale", {"cuda:80"}, defaultParams()), "demo");
  ASSERT_TRUE(link(o));
  ASSERT_EQ(names().size(), 5u);
  // Same outputs, now from an input that does not validate: the old library goes too.
  fs::remove(dir_ / "sm80.cubin");
  Status s = link(o);
  ASSERT_FALSE(s);
  EXPECT_EQ(s.error().code, ExitCode::UsageError);
  EXPECT_TRUE(names().empty());
}

// A tuning table that does not fit the library fails the link before anything is written, and
// the earlier library of the same names goes too; one that fits is compiled in.
TEST_F(Link, ATuningTableIsCheckedBeforeAnythingIsWritten) {
  LinkOptions o = options(writeAll("scale", {"cuda:80"}, defaultParams()), "demo");
  ASSERT_TRUE(link(o));
  const std::string config = parseLibraryManifest(nlohmann::json::parse(readFile(dir_ / "out/demo.json")))
                                 ->kernels.at(0).configs.at(0).name;
  auto table = [&](const std::string &kernel, const std::string &best) {
    nlohmann::json shape = {{"key", {1024}}, {"best", best}, {"times_us", {{best, 1.0}}}};
    nlohmann::json target = {{"target", "cuda:80"}, {"shapes", nlohmann::json::array({shape})}};
    nlohmann::json tuned = {{"kernel", kernel}, {"key", {"n"}},
                            {"targets", nlohmann::json::array({target})}};
    return nlohmann::json{{"schema", "triton-aot-tuning"}, {"version", 1},
                          {"kernels", nlohmann::json::array({tuned})}};
  };
  writeFile(dir_ / "bad.tuning.json", table("scale", "no_such_config").dump());
  o.tuningTables = {(dir_ / "bad.tuning.json").string()};
  Status s = link(o);
  ASSERT_FALSE(s);
  EXPECT_EQ(s.error().code, ExitCode::UsageError);
  EXPECT_THAT(s.error().message, HasSubstr("is tuned to run config 'no_such_config' on cuda:80"));
  EXPECT_TRUE(names().empty());

  writeFile(dir_ / "good.tuning.json", table("scale", config).dump());
  o.tuningTables = {(dir_ / "good.tuning.json").string()};
  s = link(o);
  ASSERT_TRUE(s) << formatDiagnostic(s.error());
  EXPECT_THAT(readFile(dir_ / "out/demo.c"), HasSubstr("from good.tuning.json"));
}

// A config built for no target keeps its declared place in the API (its index, its name, the
// manifest) and refuses to launch everywhere: an entry without an image that says why. Being
// first, it is the untuned default, which the link warns about.
TEST_F(Link, AConfigBuiltForNoTargetKeepsItsPlaceAndHasNoImage) {
  std::vector<std::string> inputs;
  for (const char *target : {"cuda:80", "hip:gfx90a"}) {
    KernelMetadata m = variant("scale", target, defaultParams(), "small");
    m.variant.configIndex = 1;
    inputs.push_back(write(m));
    inputs.push_back(
        writeRefusal(dir_, "scale", target, "wide", "limited to archs=100a", {{"BLOCK", 1024}}, 0));
  }
  std::vector<std::string> log;
  Status s = link(options(inputs, "demo"), [&](std::string_view line) { log.emplace_back(line); });
  ASSERT_TRUE(s) << formatDiagnostic(s.error());
  EXPECT_THAT(log, ::testing::Contains(HasSubstr(
                       "warning: kernel 'scale': its first config, wide, is not built for "
                       "cuda:80, hip:gfx90a, so demo_scale(), which runs the first config, "
                       "returns TRITON_AOT_ERROR_NO_IMAGE on such a device")));

  const std::string header = readFile(dir_ / "out/demo.h");
  EXPECT_THAT(header, HasSubstr("demo_scale_CONFIG_wide = 0,"));
  EXPECT_THAT(header, HasSubstr("demo_scale_CONFIG_small = 1"));
  auto manifest = parseLibraryManifest(nlohmann::json::parse(readFile(dir_ / "out/demo.json")));
  ASSERT_TRUE(manifest) << manifest.error().message;
  const auto &configs = manifest->kernels.at(0).configs;
  ASSERT_EQ(configs.size(), 2u);
  EXPECT_EQ(configs[0].name, "wide");
  EXPECT_EQ(configs[1].name, "small");
  const nlohmann::json raw = nlohmann::json::parse(readFile(dir_ / "out/demo.json"));
  for (const auto &f : raw["kernels"][0]["configs"][0]["variants"][0]["functions"])
    EXPECT_EQ(f["refused"], "config wide is not built for " + f["target"].get<std::string>() +
                                ": limited to archs=100a");
  for (const auto &f : raw["kernels"][0]["configs"][1]["variants"][0]["functions"])
    EXPECT_FALSE(f.contains("refused")) << f;
  // Its functions in the dispatcher's table: no binary, no PTX, the reason as the message.
  const std::string source = readFile(dir_ / "out/demo.c");
  for (const char *target : {"cuda:80", "hip:gfx90a"}) {
    const std::string reason =
        std::string("config wide is not built for ") + target + ": limited to archs=100a";
    EXPECT_THAT(source, HasSubstr(reason)) << target;
  }
  EXPECT_THAT(source, HasSubstr("TRITON_AOT_NO_IMAGE, TRITON_AOT_NO_IMAGE"));
}

TEST_F(Link, AnInterruptedLinkLeavesNothing) {
  LinkOptions o = options(writeAll("scale", {"cuda:80"}, defaultParams()), "demo");
  ASSERT_TRUE(link(o));
  int polls = 0;
  for (int stopAt : {1, 2, 3}) {
    polls = 0;
    o.interrupted = [&] { return ++polls >= stopAt; };
    Status s = link(o);
    ASSERT_FALSE(s);
    EXPECT_EQ(s.error().code, ExitCode::Interrupted);
    EXPECT_TRUE(names().empty()) << "stopped at poll " << stopAt;
  }
}

TEST_F(Link, UnwritableOutputIsAnOutputError) {
  LinkOptions o = options(writeAll("scale", {"cuda:80"}, defaultParams()), "demo");
  fs::create_directories(dir_ / "out");
  writeFile(dir_ / "out/keep.txt", "not ours");
  fs::create_directories(dir_ / "out/demo.h");   // a directory where a file must go
  Status s = link(o);
  ASSERT_FALSE(s);
  EXPECT_EQ(s.error().code, ExitCode::OutputError);
  EXPECT_THAT(names(), ::testing::ElementsAre("demo.h", "keep.txt"));   // the directory stays
}

} // namespace
} // namespace tta::link::testing
