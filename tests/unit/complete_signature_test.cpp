// completeSignature: a signature against the described parameters of its function, with
// entries by position, by name, and parameters left to their defaults.
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

} // namespace
} // namespace tta
