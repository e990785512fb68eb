// The command line of triton-aot-ld.
#include "linker/linker_options.h"

#include "parse_expect.h"

#include <gmock/gmock.h>

#include <filesystem>

namespace tta::link {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
namespace fs = std::filesystem;

TEST(LinkerOptions, Link) {
  auto cl = expectParsed(parseLinkCommandLine({"--name", "kernels", "--prefix", "kn", "-o", "out",
                                               "a.json", "idx/index.json", "-v"}),
                         "link");
  EXPECT_TRUE(cl.inspect.empty());
  EXPECT_TRUE(cl.earlyExitText.empty());
  const LinkOptions &o = cl.options;
  EXPECT_EQ(o.name, "kernels");
  EXPECT_EQ(o.prefix, "kn");
  EXPECT_EQ(o.outputDir, (fs::current_path() / "out").lexically_normal());
  EXPECT_THAT(o.inputs, ElementsAre("a.json", "idx/index.json"));
  EXPECT_TRUE(o.embedPtx);
  EXPECT_FALSE(o.compress);
  EXPECT_EQ(o.compressionLevel, 19);
  EXPECT_TRUE(o.verbose);
}

TEST(LinkerOptions, EachTuningTakesOneTableAndTheInputsFollow) {
  auto cl = expectParsed(parseLinkCommandLine({"--name", "k", "-o", "out", "--tuning", "a.tuning.json",
                                               "--tuning", "b.tuning.json", "idx/index.json",
                                               "c.json"}),
                         "tuning");
  EXPECT_THAT(cl.options.tuningTables, ElementsAre("a.tuning.json", "b.tuning.json"));
  EXPECT_THAT(cl.options.inputs, ElementsAre("idx/index.json", "c.json"));
}

TEST(LinkerOptions, PtxAndCompression) {
  auto cl = expectParsed(parseLinkCommandLine({"--name=k", "--output-dir", "/tmp/x", "--no-ptx",
                                               "--compress", "--compress-level", "5", "a.json"}),
                         "compress");
  EXPECT_EQ(cl.options.prefix, "");   // the linker defaults it to the name
  EXPECT_EQ(cl.options.outputDir, fs::path("/tmp/x"));
  EXPECT_FALSE(cl.options.embedPtx);
  EXPECT_TRUE(cl.options.compress);
  EXPECT_EQ(cl.options.compressionLevel, 5);
  EXPECT_FALSE(cl.options.verbose);
  cl = expectParsed(parseLinkCommandLine({"--name", "k", "-o", "d", "--compress", "a.json"}), "default level");
  EXPECT_EQ(cl.options.compressionLevel, 19);
}

TEST(LinkerOptions, Inspect) {
  auto cl = expectParsed(parseLinkCommandLine({"--inspect", "lib.json"}), "inspect");
  EXPECT_EQ(cl.inspect, "lib.json");
  Diagnostic diag = expectUsageError(parseLinkCommandLine({"--inspect", "lib.json", "--name", "x"}), "both");
  EXPECT_EQ(diag.message, "--inspect reads one file and takes no --name");
  diag = expectUsageError(parseLinkCommandLine({"--inspect", "lib.json", "a.json"}), "inputs");
  EXPECT_EQ(diag.message, "--inspect reads one file and takes no inputs");
}

TEST(LinkerOptions, VersionAndHelp) {
  auto version = expectParsed(parseLinkCommandLine({"--version"}), "--version");
  EXPECT_EQ(version.earlyExitText, "triton-aot-ld 0.1.0\n");
  auto help = expectParsed(parseLinkCommandLine({"--help"}), "--help");
  EXPECT_THAT(help.earlyExitText, HasSubstr("--inspect"));
  EXPECT_THAT(help.earlyExitText, HasSubstr("--compress-level"));
  EXPECT_THAT(help.earlyExitText, HasSubstr("Exit status: 0 success, 2 bad command line"));
}

TEST(LinkerOptions, UsageErrors) {
  struct Case {
    std::vector<std::string> args;
    std::string message;
  };
  const Case cases[] = {
      {{"-o", "d", "a.json"}, "missing --name"},
      {{"--name", "k", "a.json"}, "missing -o/--output-dir"},
      {{"--name", "k", "-o", "d"}, "no inputs: give the metadata files or the --index file"},
      {{"--name", "k", "-o", "d", "--compress-level", "3", "a.json"}, "--compress-level needs --compress"},
      {{"--name", "k", "-o", "d", "--compress", "--compress-level", "0", "a.json"},
       "--compress-level 0 is out of range: 1 to 22"},
      {{"--name", "k", "-o", "d", "--compress", "--compress-level", "99", "a.json"},
       "--compress-level 99 is out of range"},
      {{"--name", "k", "-o", "d", "--compress-level", "x", "--compress", "a.json"}, "x"},
      {{"--name", "k", "-o", "d", "--frobnicate", "a.json"}, "--frobnicate"},
      {{}, "missing --name"},
  };
  for (const Case &c : cases) {
    std::string text;
    for (const std::string &a : c.args)
      text += a + " ";
    Diagnostic diag = expectUsageError(parseLinkCommandLine(c.args), text);
    EXPECT_THAT(diag.message, HasSubstr(c.message)) << text;
    EXPECT_THAT(diag.notes, ElementsAre("run 'triton-aot-ld --help' for the options")) << text;
  }
}

} // namespace
} // namespace tta::link
