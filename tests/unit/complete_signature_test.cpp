// completeSignature: a signature against the described parameters of its function, with
// entries by position, by name, and parameters left to their defaults; resolveKernelNames: a
// signature that names every parameter, as upstream compile.py's users write one.
#include "compiler/frontend_client.h"

#include "parse_expect.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

namespace tta {
namespace {

using nlohmann::json;

// def kernel(x_ptr, n, scale=2.0, BLOCK: tl.constexpr = 256, ADD_ONE: tl.constexpr = False,
//            DT: tl.constexpr = tl.float16, MODE: tl.constexpr = "fast", bias=None)
json described() {
  return {{"function", "kernel"},
          {"line", 7},
          {"params",
           {{{"name", "x_ptr"}, {"constexpr", false}},
            {{"name", "n"}, {"constexpr", false}},
            {{"name", "scale"}, {"constexpr", false}, {"default", {{"type", "float"}, {"value", 2.0}}}},
            {{"name", "BLOCK"}, {"constexpr", true}, {"default", {{"type", "int"}, {"value", 256}}}},
            {{"name", "ADD_ONE"}, {"constexpr", true}, {"default", {{"type", "bool"}, {"value", false}}}},
            {{"name", "DT"}, {"constexpr", true}, {"default", {{"type", "dtype"}, {"value", "float16"}}}},
            {{"name", "MODE"}, {"constexpr", true}, {"default", {{"type", "str"}, {"value", "fast"}}}},
            {{"name", "bias"}, {"constexpr", false}, {"default", {{"type", "none"}}}}}}};
}

Expected<Signature> complete(std::string_view text, const json &info = described()) {
  return completeSignature(expectParsed(parseSignature(text), text), info, "kernel", "k.py");
}

TEST(CompleteSignatureTest, ParametersLeftOutTakeTheirDefaults) {
  auto s = complete("*fp32, i32");
  ASSERT_TRUE(s) << s.error().message;
  EXPECT_EQ(formatSignature(*s), "*fp32, i32, 2.0, 256, False, tl.float16, 'fast', None");
  EXPECT_EQ(s->text, "*fp32, i32");
  EXPECT_EQ(s->entries[3].text, "BLOCK=256");
}

TEST(CompleteSignatureTest, EntriesByNameGoToTheirParameters) {
  auto s = complete("*fp32:16, i32, fp32, ADD_ONE=True, bias=*fp32, BLOCK=BLOCK");
  ASSERT_TRUE(s) << s.error().message;
  EXPECT_EQ(formatSignature(*s), "*fp32:16, i32, fp32, BLOCK, True, tl.float16, 'fast', *fp32");
  for (const SignatureEntry &entry : s->entries)
    EXPECT_EQ(entry.keyword, "") << "the complete signature is positional";
}

TEST(CompleteSignatureTest, AFullPositionalSignatureComesBackAsItIs) {
  auto s = complete("*fp32, i32, fp32, 128, True, tl.float32, 'slow', *fp16");
  ASSERT_TRUE(s) << s.error().message;
  EXPECT_EQ(formatSignature(*s), "*fp32, i32, fp32, 128, True, tl.float32, 'slow', *fp16");
}

TEST(CompleteSignatureTest, Errors) {
  auto s = complete("*fp32");
  ASSERT_FALSE(s);
  EXPECT_EQ(s.error().message, "signature has 1 entries but 'kernel' has 8 parameters (x_ptr, n, scale, "
                               "BLOCK, ADD_ONE, DT, MODE, bias)");
  EXPECT_EQ(s.error().notes.at(0), "no entry for n");
  EXPECT_EQ(s.error().file, "k.py");
  EXPECT_EQ(s.error().line, 7);

  s = complete("*fp32, i32, BLOKC=128");
  ASSERT_FALSE(s);
  EXPECT_EQ(s.error().message, "signature entry 'BLOKC=128' names no parameter of 'kernel' (x_ptr, n, scale, "
                               "BLOCK, ADD_ONE, DT, MODE, bias)");
  s = complete("*fp32, i32, fp32, n=i32");
  ASSERT_FALSE(s);
  EXPECT_EQ(s.error().message, "signature entry 'n=i32' gives 'n' a second time");
  s = complete("*fp32, i32, fp32, BLOCK=i32");
  ASSERT_FALSE(s);
  EXPECT_EQ(s.error().message, "signature entry 4 'BLOCK=i32' is a type, but 'BLOCK' is declared "
                               "tl.constexpr: give its value (e.g. 128) or a config name");
  s = complete("*fp32, i32, fp32, 1, True, tl.float16, 'a', *fp32, 5");
  ASSERT_FALSE(s);
  EXPECT_EQ(s.error().notes.at(0), "entry 9 '5' has no parameter");

  json odd = described();
  odd["params"][2]["default"] = {{"type", "unsupported"}, {"repr", "<object>"}};
  s = complete("*fp32, i32", odd);
  ASSERT_FALSE(s);
  EXPECT_EQ(s.error().message, "parameter 'scale' was left out of the signature, and its default <object> "
                               "cannot be compiled in; give it an entry (scale=<value>)");
}

// @triton.heuristics({"EVEN_N": lambda args: args["n"] % args["BLOCK_N"] == 0})
// def rows(x_ptr, n, BLOCK_N: tl.constexpr, EVEN_N: tl.constexpr, MODE: tl.constexpr = "fast",
//          scale=2.0)
json describedRows() {
  return {{"function", "rows"},
          {"line", 12},
          {"params",
           {{{"name", "x_ptr"}, {"constexpr", false}},
            {{"name", "n"}, {"constexpr", false}},
            {{"name", "BLOCK_N"}, {"constexpr", true}},
            {{"name", "EVEN_N"}, {"constexpr", true}},
            {{"name", "MODE"}, {"constexpr", true}, {"default", {{"type", "str"}, {"value", "fast"}}}},
            {{"name", "scale"}, {"constexpr", false}, {"default", {{"type", "float"}, {"value", 2.0}}}}}},
          {"heuristics", {{{"name", "EVEN_N"}, {"expression", "args['n'] % args['BLOCK_N'] == 0"}}}}};
}

Expected<Signature> resolveNames(std::string_view text, const std::string &config = "",
                                 const json &info = describedRows()) {
  return resolveKernelNames(expectParsed(parseSignature(text), text), config, info, "rows", "k.py");
}

TEST(ResolveKernelNamesTest, AHeuristicsParameterNamedIsLeftToItsHeuristic) {
  auto s = resolveNames("*fp32, i32, 128, EVEN_N");
  ASSERT_TRUE(s) << s.error().message;
  EXPECT_EQ(formatSignature(*s), "*fp32, i32, 128");
  EXPECT_EQ(s->text, "*fp32, i32, 128, EVEN_N");
  // By name too.
  s = resolveNames("*fp32, i32, 128, EVEN_N=EVEN_N");
  ASSERT_TRUE(s) << s.error().message;
  EXPECT_EQ(formatSignature(*s), "*fp32, i32, 128");
}

TEST(ResolveKernelNamesTest, AParameterNamedTakesItsDefault) {
  auto s = resolveNames("*fp32, i32, 128, EVEN_N, MODE, scale");
  ASSERT_TRUE(s) << s.error().message;
  // After an entry left out, the entries by position go by name.
  EXPECT_EQ(formatSignature(*s), "*fp32, i32, 128, MODE='fast', scale=2.0");
  EXPECT_EQ(s->entries[3].text, "MODE=MODE");
  // A value after it keeps its parameter.
  s = resolveNames("*fp32, i32, 128, EVEN_N, 'exact', fp32");
  ASSERT_TRUE(s) << s.error().message;
  EXPECT_EQ(formatSignature(*s), "*fp32, i32, 128, MODE='exact', scale=fp32");
  // The same entries complete to what leaving them out gives.
  json info = describedRows();
  auto full = resolveNames("*fp32, i32, 64, EVEN_N, MODE, scale");
  ASSERT_TRUE(full) << full.error().message;
  Signature withHeuristic = *full;
  SignatureEntry placeholder;
  placeholder.kind = SignatureEntry::Kind::Constexpr;
  placeholder.keyword = "EVEN_N";
  withHeuristic.entries.push_back(placeholder);
  Signature leftOut = expectParsed(parseSignature("*fp32, i32, 64, EVEN_N=0"), "left out");
  auto a = completeSignature(withHeuristic, info, "rows", "k.py");
  auto b = completeSignature(leftOut, info, "rows", "k.py");
  ASSERT_TRUE(a && b);
  EXPECT_EQ(formatSignature(*a), formatSignature(*b));
  EXPECT_EQ(formatSignature(*a), "*fp32, i32, 64, 0, 'fast', 2.0");
}

TEST(ResolveKernelNamesTest, ValuesAndConfigNamesAreLeftAlone) {
  auto s = resolveNames("*fp32:16, i32:16, 256, MODE='slow'");
  ASSERT_TRUE(s) << s.error().message;
  EXPECT_EQ(formatSignature(*s), "*fp32:16, i32:16, 256, MODE='slow'");
}

TEST(ResolveKernelNamesTest, ANameThatIsNoParameterListsThem) {
  auto s = resolveNames("*fp32, i32, BLOKC_N, EVEN_N");
  ASSERT_FALSE(s);
  EXPECT_EQ(s.error().code, ExitCode::UsageError);
  EXPECT_EQ(s.error().message, "signature entry 3 'BLOKC_N' has no value: no config gives BLOKC_N "
                               "a value, and 'rows' has no parameter BLOKC_N (its parameters: "
                               "x_ptr, n, BLOCK_N, EVEN_N, MODE, scale); did you mean BLOCK_N?");
  EXPECT_EQ(s.error().file, "k.py");
  EXPECT_EQ(s.error().line, 12);
  EXPECT_EQ(s.error().notes.at(0),
            "a name takes its value from each config (--config 'BLOKC_N=<value> ...'; CMake: "
            "CONFIG \"BLOKC_N=<value> ...\"), or, when it is the name of the parameter in its "
            "place, from that parameter's @triton.heuristics or default");
  EXPECT_EQ(s.error().notes.at(1), "signature: *fp32, i32, BLOKC_N, EVEN_N");
}

TEST(ResolveKernelNamesTest, AConstexprWithNothingToGiveItAValueSaysHowToGiveOne) {
  auto s = resolveNames("*fp32, i32, BLOCK_N, EVEN_N", "config small");
  ASSERT_FALSE(s);
  EXPECT_EQ(s.error().message, "signature entry 3 'BLOCK_N' has no value: config small gives "
                               "BLOCK_N no value, and 'rows' has no default or @triton.heuristics "
                               "for BLOCK_N");
  EXPECT_EQ(s.error().notes.at(0),
            "give it a value in the signature (BLOCK_N=128, or 128 in its place) or in each "
            "config (--config 'BLOCK_N=<value> ...'; CMake: CONFIG \"BLOCK_N=<value> ...\")");
}

TEST(ResolveKernelNamesTest, OtherNamesThatCannotBuild) {
  // Out of order: the name of another parameter.
  auto s = resolveNames("*fp32, i32, EVEN_N, BLOCK_N");
  ASSERT_FALSE(s);
  EXPECT_EQ(s.error().message, "signature entry 3 'EVEN_N' stands for parameter 'BLOCK_N', not "
                               "for 'EVEN_N', and no config gives EVEN_N a value");
  EXPECT_EQ(s.error().notes.at(0),
            "entries by position follow the parameters of 'rows': x_ptr, n, BLOCK_N, EVEN_N, MODE, scale");
  EXPECT_EQ(s.error().notes.at(1), "write it in the place of 'EVEN_N' (or as EVEN_N=EVEN_N)");
  s = resolveNames("*fp32, i32, 128, BLOCK_N");   // a name no heuristic or default decides
  ASSERT_FALSE(s);
  EXPECT_EQ(s.error().notes.at(1), "write it in the place of 'BLOCK_N' (or as BLOCK_N=BLOCK_N), or "
                                   "give BLOCK_N a value in each config (--config 'BLOCK_N=<value> "
                                   "...'; CMake: CONFIG \"BLOCK_N=<value> ...\")");
  // A runtime parameter without a default needs its type.
  s = resolveNames("*fp32, n, 128");
  ASSERT_FALSE(s);
  EXPECT_EQ(s.error().message, "signature entry 2 'n' names the parameter 'n', which is not "
                               "tl.constexpr and has no default: give its type");
  // One entry too many: counted as written.
  s = resolveNames("*fp32, i32, 128, EVEN_N, MODE, scale, extra");
  ASSERT_FALSE(s);
  EXPECT_EQ(s.error().message, "signature has 7 entries but 'rows' has 6 parameters (x_ptr, n, "
                               "BLOCK_N, EVEN_N, MODE, scale)");
  EXPECT_EQ(s.error().notes.at(0), "entry 7 'extra' has no parameter");
  // A default that cannot be compiled in.
  json odd = describedRows();
  odd["params"][4]["default"] = {{"type", "unsupported"}, {"repr", "<object>"}};
  s = resolveNames("*fp32, i32, 128, EVEN_N, MODE", "", odd);
  ASSERT_FALSE(s);
  EXPECT_EQ(s.error().message, "signature entry 5 'MODE' takes the default of 'MODE', <object>, "
                               "which cannot be compiled in");
}

} // namespace
} // namespace tta

namespace tta {
namespace {

// def add_kernel(x_ptr, y_ptr, out_ptr, n_elements, BLOCK: tl.constexpr), no defaults.
nlohmann::json vectorAdd() {
  nlohmann::json params = nlohmann::json::array();
  for (const char *name : {"x_ptr", "y_ptr", "out_ptr", "n_elements"})
    params.push_back({{"name", name}, {"constexpr", false}});
  params.push_back({{"name", "BLOCK"}, {"constexpr", true}});
  return {{"function", "add_kernel"}, {"line", 7}, {"params", params}};
}

TEST(CompleteSignatureTest, AnEntryShortNamesTheParametersItCanBe) {
  auto note = [](std::string_view text) {
    auto s = completeSignature(expectParsed(parseSignature(text), text), vectorAdd(),
                               "add_kernel", "k.py");
    EXPECT_FALSE(s) << text;
    return s ? std::string() : s.error().notes.at(0);
  };
  // 1024 is BLOCK's value: one of the runtime parameters is missing, not BLOCK.
  EXPECT_EQ(note("*fp32, *fp32, i32, 1024"),
            "no entry for x_ptr, y_ptr, out_ptr or n_elements (the entries' kinds do not tell which)");
  // Only types: the constexpr is the one without an entry.
  EXPECT_EQ(note("*fp32, *fp32, *fp32, i32"), "no entry for BLOCK");
  // Two values for one constexpr: any parameter may be the missing one; by position, BLOCK.
  EXPECT_EQ(note("*fp32, 16, *fp32, 1024"), "no entry for BLOCK");
}

} // namespace
} // namespace tta
