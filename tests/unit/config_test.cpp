#include "compiler/config.h"
#include "compiler/frontend_client.h"

#include "parse_expect.h"

#include <gtest/gtest.h>

namespace tta {
namespace {

using Kind = ConstexprValue::Kind;

Config parsed(std::string_view text) { return expectParsed(parseConfig(text), text); }

Diagnostic errorOf(std::string_view text) {
  Diagnostic diag = expectUsageError(parseConfig(text), text);
  EXPECT_EQ(diag.sourceLine, text);
  return diag;
}

ConstexprValue value(std::string_view text) {
  Expected<ConstexprValue> v = parseConstexpr(text);
  EXPECT_TRUE(v) << text;
  return v ? *v : ConstexprValue{};
}

Signature signature(std::string_view text) {
  Expected<Signature> s = parseSignature(text);
  EXPECT_TRUE(s) << text;
  return s ? *s : Signature{};
}

TEST(ConfigTest, ParsesTypedOptionsAndConstexprs) {
  Config c = parsed("BLOCK=1024 num_warps=4 num_stages=3");
  EXPECT_EQ(c.numWarps, 4);
  EXPECT_EQ(c.numStages, 3);
  EXPECT_FALSE(c.numCtas);
  EXPECT_FALSE(c.maxnreg);
  EXPECT_TRUE(c.name.empty());
  EXPECT_TRUE(c.options.empty());
  ASSERT_EQ(c.constexprs.size(), 1u);
  EXPECT_EQ(c.constexprs.at("BLOCK"), value("1024"));

  c = parsed("num_ctas=2 maxnreg=128");
  EXPECT_EQ(c.numCtas, 2);
  EXPECT_EQ(c.maxnreg, 128);
}

TEST(ConfigTest, ParsesEveryKindOfValue) {
  Config c = parsed("  name=fast BLOCK = 128\tF=0.5 N=None DT=tl.float16 S='a b' Q=\"x=y\" "
                    "NEG=-1 B=False ");
  EXPECT_EQ(c.name, "fast");
  EXPECT_EQ(c.constexprs.at("BLOCK"), value("128"));
  EXPECT_EQ(c.constexprs.at("F"), value("0.5"));
  EXPECT_EQ(c.constexprs.at("N").kind, Kind::None);
  EXPECT_EQ(c.constexprs.at("DT"), value("tl.float16"));
  EXPECT_EQ(c.constexprs.at("S"), value("'a b'"));
  EXPECT_EQ(c.constexprs.at("Q").text, "x=y");
  EXPECT_EQ(c.constexprs.at("NEG"), value("-1"));
  EXPECT_EQ(c.constexprs.at("B"), value("False"));
  EXPECT_EQ(c.constexprs.size(), 8u);
}

TEST(ConfigTest, EmptyConfigHasNothingSet) {
  EXPECT_EQ(parsed(""), Config{});
  EXPECT_EQ(parsed("  \t "), Config{});
}

TEST(ConfigTest, ParsesTableOptions) {
  Config c = parsed("enable_fp_fusion=False launch_pdl=True launch_cooperative_grid=False "
                    "debug=True sanitize_overflow=False enable_reflect_ftz=True "
                    "allow_flush_denorm=True waves_per_eu=2 matrix_instr_nonkdim=16 kpack=2 "
                    "max_num_imprecise_acc_default=0 schedule_hint='attention' "
                    "ptx_options='--verbose -O3' default_dot_input_precision=\"ieee\"");
  EXPECT_EQ(c.options.size(), 14u);
  EXPECT_TRUE(c.constexprs.empty());
  EXPECT_EQ(c.options.at("launch_pdl"), value("True"));
  EXPECT_EQ(c.options.at("waves_per_eu"), value("2"));
  EXPECT_EQ(c.options.at("ptx_options").text, "--verbose -O3");
  EXPECT_EQ(c.options.at("default_dot_input_precision"), value("'ieee'"));
}

TEST(ConfigTest, BareWordsAreStringsForStringOptions) {
  Config c = parsed("schedule_hint=attention default_dot_input_precision=tf32");
  EXPECT_EQ(c.options.at("schedule_hint"), value("'attention'"));
  EXPECT_EQ(c.options.at("default_dot_input_precision"), value("'tf32'"));
}

TEST(ConfigTest, IsTritonOption) {
  for (std::string_view key : {"num_warps", "num_stages", "num_ctas", "maxnreg", "enable_fp_fusion",
                               "launch_pdl", "launch_cooperative_grid", "debug", "waves_per_eu",
                               "matrix_instr_nonkdim", "kpack", "schedule_hint", "ptx_options"})
    EXPECT_TRUE(isTritonOption(key)) << key;
  for (std::string_view key : {"BLOCK", "name", "num_warp", "NUM_WARPS", "warp_size", ""})
    EXPECT_FALSE(isTritonOption(key)) << key;
}

TEST(ConfigTest, EachBackendHasItsOwnOptions) {
  for (std::string_view both : {"num_warps", "num_stages", "num_ctas", "debug", "enable_fp_fusion",
                                "launch_cooperative_grid", "sanitize_overflow",
                                "default_dot_input_precision", "max_num_imprecise_acc_default"}) {
    EXPECT_TRUE(backendHasOption(Backend::Cuda, both)) << both;
    EXPECT_TRUE(backendHasOption(Backend::Hip, both)) << both;
  }
  for (std::string_view cuda : {"maxnreg", "launch_pdl", "enable_reflect_ftz", "ptx_options"}) {
    EXPECT_TRUE(backendHasOption(Backend::Cuda, cuda)) << cuda;
    EXPECT_FALSE(backendHasOption(Backend::Hip, cuda)) << cuda;
  }
  for (std::string_view hip :
       {"waves_per_eu", "matrix_instr_nonkdim", "kpack", "schedule_hint", "allow_flush_denorm"}) {
    EXPECT_FALSE(backendHasOption(Backend::Cuda, hip)) << hip;
    EXPECT_TRUE(backendHasOption(Backend::Hip, hip)) << hip;
  }
}

TEST(ConfigTest, ACompileRequestLeavesOutTheOtherBackendsOptions) {
  Config c = parsed("BLOCK=64 num_warps=8 maxnreg=128 waves_per_eu=2 kpack=2 debug=True");
  const nlohmann::json all = {
      {"num_warps", 8}, {"maxnreg", 128}, {"waves_per_eu", 2}, {"kpack", 2}, {"debug", true}};
  EXPECT_EQ(requestOptions(c), all); // what the metadata records
  EXPECT_EQ(requestOptions(c, Backend::Cuda),
            nlohmann::json({{"num_warps", 8}, {"maxnreg", 128}, {"debug", true}}));
  EXPECT_EQ(requestOptions(c, Backend::Hip),
            nlohmann::json({{"num_warps", 8}, {"waves_per_eu", 2}, {"kpack", 2}, {"debug", true}}));
}

TEST(ConfigTest, NumWarpsMustBeAPowerOfTwo) {
  for (int warps : {1, 2, 4, 8, 16, 32})
    EXPECT_EQ(parsed("num_warps=" + std::to_string(warps)).numWarps, warps);
  Diagnostic d = errorOf("BLOCK=1 num_warps=3");
  EXPECT_EQ(d.message,
            "config entry 2 'num_warps=3': num_warps must be a power of two from 1 to 32, got 3");
  EXPECT_EQ(d.column, 19);
  EXPECT_EQ(errorOf("num_warps=64").message,
            "config entry 1 'num_warps=64': num_warps must be a power of two from 1 to 32, got 64");
  EXPECT_EQ(errorOf("num_warps=0").message,
            "config entry 1 'num_warps=0': num_warps must be a power of two from 1 to 32, got 0");
  EXPECT_EQ(
      errorOf("num_warps=4.0").message,
      "config entry 1 'num_warps=4.0': num_warps must be a power of two from 1 to 32, got 4.0");
  EXPECT_EQ(
      errorOf("num_warps='4'").message,
      "config entry 1 'num_warps='4'': num_warps must be a power of two from 1 to 32, got '4'");
}

TEST(ConfigTest, CountsMustBePositive) {
  EXPECT_EQ(errorOf("num_stages=0").message,
            "config entry 1 'num_stages=0': num_stages must be a positive integer, got 0");
  EXPECT_EQ(errorOf("num_ctas=-2").message,
            "config entry 1 'num_ctas=-2': num_ctas must be a positive integer, got -2");
  EXPECT_EQ(errorOf("maxnreg=True").message,
            "config entry 1 'maxnreg=True': maxnreg must be a positive integer, got True");
  EXPECT_EQ(errorOf("num_stages=99999999999").message,
            "config entry 1 'num_stages=99999999999': num_stages must be a positive integer, got "
            "99999999999");
}

TEST(ConfigTest, TableOptionsMustHaveTheirKind) {
  EXPECT_EQ(errorOf("debug=1").message,
            "config entry 1 'debug=1': debug must be True or False, got 1");
  EXPECT_EQ(errorOf("launch_pdl='yes'").message,
            "config entry 1 'launch_pdl='yes'': launch_pdl must be True or False, got 'yes'");
  EXPECT_EQ(errorOf("kpack=x").message,
            "config entry 1 'kpack=x': kpack must be a non-negative integer, got x");
  EXPECT_EQ(
      errorOf("waves_per_eu=-1").message,
      "config entry 1 'waves_per_eu=-1': waves_per_eu must be a non-negative integer, got -1");
  EXPECT_EQ(errorOf("schedule_hint=3").message,
            "config entry 1 'schedule_hint=3': schedule_hint must be a string, got 3");
  Diagnostic d = errorOf("debug=true");
  EXPECT_EQ(d.message, "config entry 1 'debug=true': 'true' is not a value; did you mean True?");
  EXPECT_EQ(d.column, 7);
}

TEST(ConfigTest, RejectsMalformedEntries) {
  Diagnostic d = errorOf("A=1 BLOCK");
  EXPECT_EQ(d.message,
            "config entry 2 'BLOCK': expected KEY=VALUE, such as BLOCK=1024 or num_warps=4");
  EXPECT_EQ(d.column, 5);
  EXPECT_EQ(errorOf("=5").message,
            "config entry 1 '=5': expected KEY=VALUE, such as BLOCK=1024 or num_warps=4");
  EXPECT_EQ(errorOf("BLOCK:5").message,
            "config entry 1 'BLOCK:5': expected KEY=VALUE, such as BLOCK=1024 or num_warps=4");
  EXPECT_EQ(errorOf("B-K=5").message,
            "config entry 1 'B-K=5': expected KEY=VALUE, such as BLOCK=1024 or num_warps=4");
  d = errorOf("BLOCK=");
  EXPECT_EQ(d.message, "config entry 1 'BLOCK=': no value; expected BLOCK=<value>");
  EXPECT_EQ(d.column, 7);
  EXPECT_EQ(errorOf("1A=5").message,
            "config entry 1 '1A=5': key '1A' is not a name; expected a letter or '_' first");
  d = errorOf("BLOCK=1,N=2");
  EXPECT_EQ(d.message, "config entry 1 'BLOCK=1,N=2': unexpected ','; separate config entries "
                       "with spaces");
  EXPECT_EQ(d.column, 8);
}

TEST(ConfigTest, RejectsBadValues) {
  Diagnostic d = errorOf("BLOCK=foo");
  EXPECT_EQ(d.message, "config entry 1 'BLOCK=foo': 'foo' is not a value; expected a number, "
                       "True, False, None, a dtype such as tl.float16, or a quoted string such as "
                       "'foo'");
  EXPECT_EQ(d.column, 7);
  d = errorOf("X=1 BLOCK=1.2.3");
  EXPECT_EQ(d.message, "config entry 2 'BLOCK=1.2.3': '1.2.3' is not a valid number; expected an "
                       "integer such as 42, -1 or 0x10, or a float such as 0.5 or 1e-3");
  EXPECT_EQ(d.column, 11);
  d = errorOf("X=1 S='abc");
  EXPECT_EQ(d.message, "config entry 2 'S='abc': unterminated string; expected a closing '");
  EXPECT_EQ(d.column, 7);
  d = errorOf("T=tl.float33");
  EXPECT_EQ(
      d.message,
      "config entry 1 'T=tl.float33': unknown dtype 'tl.float33'; did you mean 'tl.float32'?");
  EXPECT_EQ(d.column, 6);
  EXPECT_EQ(errorOf("T=i32").message,
            "config entry 1 'T=i32': 'i32' is a type, not a constexpr value; expected a number, "
            "True, False, None, a quoted string, a dtype such as tl.float16 or a name");
}

TEST(ConfigTest, RejectsDuplicateKeys) {
  Diagnostic d = errorOf("BLOCK=1 num_warps=4 BLOCK=2");
  EXPECT_EQ(d.message,
            "config entry 3 'BLOCK=2': BLOCK is already set by entry 1; expected each key once");
  EXPECT_EQ(d.column, 21);
  EXPECT_EQ(errorOf("num_warps=4 num_warps=8").message,
            "config entry 2 'num_warps=8': num_warps is already set by entry 1; expected each key "
            "once");
  EXPECT_EQ(errorOf("name=a name=b").message,
            "config entry 2 'name=b': name is already set by entry 1; expected each key once");
}

TEST(ConfigTest, ConfigNames) {
  EXPECT_EQ(parsed("name=fast_1").name, "fast_1");
  EXPECT_EQ(parsed("name='big'").name, "big");
  EXPECT_EQ(parsed("name=64").name, "64");
  EXPECT_EQ(errorOf("name=a-b").message,
            "config entry 1 'name=a-b': a config name may contain only letters, digits and '_', "
            "got a-b");
  EXPECT_EQ(errorOf("name='a b'").message,
            "config entry 1 'name='a b'': a config name may contain only letters, digits and '_', "
            "got 'a b'");
}

TEST(ConfigTest, FormatsCanonically) {
  Config c = parsed("  Z=1 BLOCK = 0x80 num_warps=8 name=fast debug=True S=\"it's\" "
                    "num_stages=2 schedule_hint=attention maxnreg=64 num_ctas=1 F=1e-5");
  EXPECT_EQ(formatConfig(c), "name=fast debug=True maxnreg=64 num_ctas=1 num_stages=2 "
                             "num_warps=8 schedule_hint='attention' BLOCK=128 F=1e-05 "
                             "S='it\\'s' Z=1");
  EXPECT_EQ(formatConfig(Config{}), "");
}

TEST(ConfigTest, FormatRoundTrips) {
  for (std::string_view text :
       {"BLOCK=1024 num_warps=4 num_stages=3", "name=v2 num_ctas=2 maxnreg=255",
        "S='a b' Q=\"x=y\" DT=tl.bfloat16 N=None F=-0.25 B=True",
        "ptx_options='--a --b' launch_pdl=True kpack=2 schedule_hint=attention", ""}) {
    Config c = parsed(text);
    Config again = parsed(formatConfig(c));
    EXPECT_EQ(again, c) << text;
    EXPECT_EQ(formatConfig(again), formatConfig(c)) << text;
  }
}

TEST(ConfigTest, ResolveSignatureSubstitutesNames) {
  Signature s = signature("*fp32:16, i32, BLOCK, DT, 1.5, BLOCK");
  Expected<Signature> r = resolveSignature(s, parsed("BLOCK=256 DT=tl.float16 num_warps=4"));
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_EQ(formatSignature(*r), "*fp32:16, i32, 256, tl.float16, 1.5, 256");
  EXPECT_EQ(r->entries[2].kind, SignatureEntry::Kind::Constexpr);
  EXPECT_EQ(r->entries[2].value, value("256"));
  EXPECT_EQ(r->entries[2].text, "BLOCK"); // as written
  EXPECT_EQ(r->entries[2].column, s.entries[2].column);
  EXPECT_EQ(r->text, s.text);
  // The input is left alone.
  EXPECT_EQ(s.entries[2].value.kind, Kind::Name);
}

TEST(ConfigTest, AnOptionAlsoGivesTheConstexprOfItsName) {
  // The fused softmax tutorial: `num_stages: tl.constexpr`, launched with num_stages=...
  Signature s = signature("*fp32, i32, BLOCK, num_stages, launch_pdl");
  Expected<Signature> r = resolveSignature(s, parsed("BLOCK=128 num_stages=4 launch_pdl=True"));
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_EQ(formatSignature(*r), "*fp32, i32, 128, 4, True");
  // A constexpr the config names wins; an option the config leaves unset gives nothing.
  r = resolveSignature(signature("*fp32, num_warps"), parsed("num_warps=8"));
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_EQ(formatSignature(*r), "*fp32, 8");
  r = resolveSignature(signature("*fp32, num_stages"), parsed("num_warps=8"));
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_EQ(r->entries[1].value.kind, Kind::Name);
}

TEST(ConfigTest, ResolveSignatureWithoutNamesNeedsNoConfig) {
  Signature s = signature("*fp32, 1024");
  Expected<Signature> r = resolveSignature(s, Config{});
  ASSERT_TRUE(r);
  EXPECT_EQ(r->entries, s.entries);
}

TEST(ConfigTest, NamesTheConfigGivesNoValueStayNames) {
  // The kernel's parameters decide them (a heuristic's value, a default: resolveKernelNames).
  Signature s = signature("*fp32, i32, 1024, N, BLOCK, EVEN=EVEN");
  Expected<Signature> r = resolveSignature(s, parsed("N=4"));
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_EQ(formatSignature(*r), "*fp32, i32, 1024, 4, BLOCK, EVEN=EVEN");
  EXPECT_EQ(r->entries[4].value.kind, Kind::Name);
  EXPECT_EQ(r->entries[5].value.kind, Kind::Name);
}

TEST(ConfigTest, ResolveSignatureReportsUnusedConstexprs) {
  Signature s = signature("*fp32, BLOCK_M, BLOCK_N");
  Expected<Signature> r = resolveSignature(s, parsed("BLOCK_M=64 BLOCK_N=64 BLOCK_K=32"));
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().code, ExitCode::UsageError);
  EXPECT_EQ(r.error().message,
            "config sets BLOCK_K but no signature entry is named BLOCK_K; did you mean BLOCK_M?");

  r = resolveSignature(signature("*fp32, BLOCK"), parsed("BLOCK=1 num_warp=4"));
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().message,
            "config sets num_warp but no signature entry is named num_warp; did you mean the "
            "option num_warps?");

  r = resolveSignature(signature("*fp32, 1024"), parsed("EXTRA=1"));
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().message, "config sets EXTRA but no signature entry is named EXTRA");
}

} // namespace
} // namespace tta
