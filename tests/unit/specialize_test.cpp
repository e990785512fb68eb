// --specialize-for: the variants Triton's JIT compiles for given calls, argument by argument.
#include "compiler/specialize.h"
#include "parse_expect.h"

#include <gtest/gtest.h>

namespace tta {
namespace {

const nlohmann::json kMatmul = {
    {"params",
     {{{"name", "a_ptr"}}, {{"name", "b_ptr"}}, {{"name", "c_ptr"}}, {{"name", "M"}},
      {{"name", "N"}}, {{"name", "K"}}, {{"name", "stride_am"}}, {{"name", "scale"}},
      {{"name", "flag"}}, {{"name", "BLOCK"}}}},
    {"do_not_specialize", nlohmann::json::array()},
    {"do_not_specialize_on_alignment", nlohmann::json::array()}};

const char *const kGeneric = "*fp16, *fp16, *fp16, i32, i32, i64, i32, fp32, i1, 64";

Signature parsed(std::string_view text) { return expectParsed(parseSignature(text), text); }

ExampleCall call(const std::string &text) {
  SpecializePolicy policy;
  Status s = addSpecializeCall(text, policy);
  EXPECT_TRUE(s) << s.error().message;
  return s ? policy.calls.at(0) : ExampleCall{};
}

std::string specialized(const char *signature, const ExampleCall &values,
                        const nlohmann::json &describe = kMatmul) {
  auto out = specializeFor(parsed(signature), describe, values);
  return out ? out->text : "(none)";
}

TEST(Specialize, EachArgumentGetsTheHintItsOwnValueHas) {
  // M = 1 does not cost N, K and the stride their hints; pointers are aligned; floats and
  // bools have none to get; constexprs stay.
  EXPECT_EQ(specialized(kGeneric, call("M=1, N=4096, K=4096, stride_am=4096")),
            "*fp16:16, *fp16:16, *fp16:16, i32:1, i32:16, i64:16, i32:16, fp32, i1, 64");
  EXPECT_EQ(specialized(kGeneric, call("M=3000 N=3000 K=3000 stride_am=3000")),
            "*fp16:16, *fp16:16, *fp16:16, i32, i32, i64, i32, fp32, i1, 64");
  // An argument the call does not give keeps no hint.
  EXPECT_EQ(specialized(kGeneric, call("M=64")),
            "*fp16:16, *fp16:16, *fp16:16, i32:16, i32, i64, i32, fp32, i1, 64");
}

TEST(Specialize, ADeclaredHintTheCallContradictsGivesNoVariant) {
  const char *declared = "*fp16, *fp16, *fp16, i32, i32, i64:16, i32, fp32, i1, 64";
  EXPECT_EQ(specialized(declared, call("M=1, K=100")), "(none)");
  EXPECT_EQ(specialized(declared, call("M=1, K=128")),
            "*fp16:16, *fp16:16, *fp16:16, i32:1, i32, i64:16, i32, fp32, i1, 64");
}

TEST(Specialize, DoNotSpecializeListsAreKept) {
  nlohmann::json describe = kMatmul;
  describe["do_not_specialize"] = {"M"};
  describe["do_not_specialize_on_alignment"] = {"a_ptr", "N"};
  EXPECT_EQ(specialized(kGeneric, call("M=1, N=4096, K=1"), describe),
            "*fp16, *fp16:16, *fp16:16, i32, i32, i64:1, i32, fp32, i1, 64");
  // do_not_specialize_on_alignment still specializes on being 1, as Triton does.
  EXPECT_EQ(specialized(kGeneric, call("N=1"), describe),
            "*fp16, *fp16:16, *fp16:16, i32, i32:1, i64, i32, fp32, i1, 64");
}

TEST(Specialize, EntriesByKeywordAreFoundByTheirName) {
  const nlohmann::json describe = {{"params", {{{"name", "x"}}, {{"name", "n"}}, {{"name", "m"}}}}};
  EXPECT_EQ(specialized("*fp32, m=i32, n=i32", call("n=32, m=1"), describe),
            "*fp32:16, m=i32:1, n=i32:16");
}

TEST(Specialize, SignaturesAreDeduplicatedAndTheGenericStaysOut) {
  const std::vector<ExampleCall> calls = {call("M=1, N=4096, K=4096, stride_am=4096"),
                                          call("M=1, N=8192, K=8192, stride_am=8192"),
                                          call("M=512, N=512, K=512, stride_am=512"),
                                          call("M=7, N=7, K=7, stride_am=7")};
  std::vector<Signature> out = specializedSignatures(parsed(kGeneric), kMatmul, calls);
  ASSERT_EQ(out.size(), 3u);
  EXPECT_EQ(out[0].text, "*fp16:16, *fp16:16, *fp16:16, i32:1, i32:16, i64:16, i32:16, fp32, i1, 64");
  EXPECT_EQ(out[1].text, "*fp16:16, *fp16:16, *fp16:16, i32:16, i32:16, i64:16, i32:16, fp32, i1, 64");
  EXPECT_EQ(out[2].text, "*fp16:16, *fp16:16, *fp16:16, i32, i32, i64, i32, fp32, i1, 64");
  // Every pointer unaligned is left to the generic signature itself: nothing to add.
  EXPECT_TRUE(specializedSignatures(parsed("fp32, i1"), kMatmul, calls).empty());
}

TEST(Specialize, ArgumentsComputedPerCall) {
  SpecializePolicy policy;
  ASSERT_TRUE(addSpecializeCall("M=1, N=4096, K=4096", policy));
  ASSERT_TRUE(addSpecializeCall("M=3000", policy));
  ASSERT_TRUE(addSpecializeArg("stride_am=K", policy));
  ASSERT_TRUE(addSpecializeArg("stride_cm = N * 2", policy));
  ASSERT_TRUE(addSpecializeArg("M=5", policy));   // the call's own value wins
  auto calls = resolveCalls(policy);
  ASSERT_TRUE(calls) << calls.error().message;
  ASSERT_EQ(calls->size(), 2u);
  ExampleCall first = {{"M", 1}, {"N", 4096}, {"K", 4096}, {"stride_am", 4096}, {"stride_cm", 8192}};
  EXPECT_EQ((*calls)[0], first);
  // K and N unknown in the second call: the strides are too.
  ExampleCall second = {{"M", 3000}};
  EXPECT_EQ((*calls)[1], second);

  SpecializePolicy zero;
  ASSERT_TRUE(addSpecializeCall("K=0", zero));
  ASSERT_TRUE(addSpecializeArg("x=cdiv(4, K)", zero));
  auto failed = resolveCalls(zero);
  ASSERT_FALSE(failed);
  EXPECT_NE(failed.error().message.find("--specialize-arg 'x=cdiv(4, K)' for the call 'K=0'"),
            std::string::npos)
      << failed.error().message;
}

TEST(Specialize, BadCallsAndArgumentsNameTheProblem) {
  SpecializePolicy policy;
  auto message = [&](Status s) { return s ? std::string("accepted") : s.error().message; };
  EXPECT_EQ(message(addSpecializeCall("M=1, N", policy)),
            "--specialize-for 'M=1, N': 'N' is not <parameter>=<integer>");
  EXPECT_EQ(message(addSpecializeCall("M=1.5", policy)),
            "--specialize-for 'M=1.5': 'M=1.5' is not <parameter>=<integer>");
  EXPECT_EQ(message(addSpecializeCall("M=1, M=2", policy)),
            "--specialize-for 'M=1, M=2': 'M' is given twice");
  EXPECT_EQ(message(addSpecializeCall(" , ", policy)), "--specialize-for ' , ' gives no argument");
  EXPECT_EQ(message(addSpecializeArg("stride", policy)),
            "--specialize-arg 'stride': expected <parameter>=<expression>");
  EXPECT_EQ(message(addSpecializeArg("stride=K +", policy)).rfind("--specialize-arg 'stride=K +': column ", 0),
            0u);
  EXPECT_TRUE(policy.empty());
}

} // namespace
} // namespace tta
