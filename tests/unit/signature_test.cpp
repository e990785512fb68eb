#include "compiler/signature.h"

#include "parse_expect.h"

#include <gtest/gtest.h>

#include <cmath>

namespace tta {
namespace {

using Kind = ConstexprValue::Kind;

Signature parsed(std::string_view text) { return expectParsed(parseSignature(text), text); }

Diagnostic errorOf(std::string_view text) {
  Diagnostic diag = expectUsageError(parseSignature(text), text);
  if (diag.column > 0) { // the caret needs the line
    EXPECT_EQ(diag.sourceLine, text);
  }
  return diag;
}

ConstexprValue value(std::string_view text) { return expectParsed(parseConstexpr(text), text); }

ConstexprValue make(Kind kind, std::int64_t i = 0, double f = 0, std::string text = "") {
  ConstexprValue v;
  v.kind = kind;
  v.intValue = i;
  v.floatValue = f;
  v.text = std::move(text);
  return v;
}

// ---- pointers and scalars --------------------------------------------------------------------

TEST(SignatureTest, ParsesPointersScalarsAndConstexprs) {
  Signature s = parsed("*fp32:16, *fp16, i32:16, i64:1, u8, 1024, BLOCK");
  ASSERT_EQ(s.entries.size(), 7u);
  EXPECT_EQ(s.text, "*fp32:16, *fp16, i32:16, i64:1, u8, 1024, BLOCK");

  EXPECT_EQ(s.entries[0].kind, SignatureEntry::Kind::Pointer);
  EXPECT_EQ(s.entries[0].type, ScalarType::FP32);
  EXPECT_EQ(s.entries[0].hint, 16);
  EXPECT_EQ(s.entries[0].column, 1u);
  EXPECT_EQ(s.entries[0].text, "*fp32:16");

  EXPECT_EQ(s.entries[1].kind, SignatureEntry::Kind::Pointer);
  EXPECT_EQ(s.entries[1].type, ScalarType::FP16);
  EXPECT_EQ(s.entries[1].hint, 0);
  EXPECT_EQ(s.entries[1].column, 11u);

  EXPECT_EQ(s.entries[2].kind, SignatureEntry::Kind::Scalar);
  EXPECT_EQ(s.entries[2].type, ScalarType::I32);
  EXPECT_EQ(s.entries[2].hint, 16);

  EXPECT_EQ(s.entries[3].type, ScalarType::I64);
  EXPECT_EQ(s.entries[3].hint, 1);

  EXPECT_EQ(s.entries[4].type, ScalarType::U8);
  EXPECT_EQ(s.entries[4].hint, 0);

  EXPECT_EQ(s.entries[5].kind, SignatureEntry::Kind::Constexpr);
  EXPECT_EQ(s.entries[5].value, make(Kind::Int, 1024));
  EXPECT_EQ(s.entries[5].text, "1024");

  EXPECT_EQ(s.entries[6].kind, SignatureEntry::Kind::Constexpr);
  EXPECT_EQ(s.entries[6].value, make(Kind::Name, 0, 0, "BLOCK"));
  EXPECT_EQ(s.entries[6].column, 43u);
}

TEST(SignatureTest, EntriesWrittenByNameFollowThePositionalOnes) {
  Signature s = parsed("*fp32:16, i32, COMPUTE_DW = False,  BLOCK=BLOCK, eps=fp32");
  ASSERT_EQ(s.entries.size(), 5u);
  EXPECT_EQ(s.entries[1].keyword, "");
  EXPECT_EQ(s.entries[2].keyword, "COMPUTE_DW");
  EXPECT_EQ(s.entries[2].value, make(Kind::Bool, 0));
  EXPECT_EQ(s.entries[2].text, "COMPUTE_DW=False");
  EXPECT_EQ(s.entries[2].column, 16u);
  EXPECT_EQ(s.entries[3].value.kind, Kind::Name);
  EXPECT_EQ(s.entries[4].kind, SignatureEntry::Kind::Scalar);
  EXPECT_EQ(s.entries[4].keyword, "eps");
  EXPECT_EQ(formatSignature(s), "*fp32:16, i32, COMPUTE_DW=False, BLOCK=BLOCK, eps=fp32");
  EXPECT_EQ(formatSignature(parsed(formatSignature(s))), formatSignature(s));
  EXPECT_FALSE(s.entries[2] == parsed("False").entries[0]) << "the keyword is part of the entry";
}

TEST(SignatureTest, EntriesByNameErrors) {
  Diagnostic d = errorOf("*fp32, BLOCK=128, i32");
  EXPECT_EQ(d.message, "signature entry 3 'i32' follows an entry written by name; entries by position "
                       "come first, as in Python");
  EXPECT_EQ(d.column, 19);
  d = errorOf("*fp32, BLOCK=128, BLOCK=256");
  EXPECT_EQ(d.message, "signature entry 3 names BLOCK again");
  d = errorOf("*fp32, BLOCK=");
  EXPECT_EQ(d.message, "signature entry 2 'BLOCK=': no value after 'BLOCK='; expected a type or a constexpr value");
  d = errorOf("*fp32, BLOCK=*fp33");
  EXPECT_NE(d.message.find("signature entry 2 'BLOCK=*fp33': unknown type"), std::string::npos) << d.message;
}

TEST(SignatureTest, EveryTypeWorksAsPointeeAndScalar) {
  for (std::string_view name : {"i1", "i8", "i16", "i32", "i64", "u1", "u8", "u16", "u32", "u64",
                                "fp16", "bf16", "fp32", "f32", "fp64"}) {
    SCOPED_TRACE(name);
    ScalarType type = *parseScalarType(name);
    Signature s =
        parsed("*" + std::string(name) + ", *" + std::string(name) + ":16, " + std::string(name));
    ASSERT_EQ(s.entries.size(), 3u);
    EXPECT_EQ(s.entries[0].kind, SignatureEntry::Kind::Pointer);
    EXPECT_EQ(s.entries[0].type, type);
    EXPECT_EQ(s.entries[1].hint, 16);
    EXPECT_EQ(s.entries[2].kind, SignatureEntry::Kind::Scalar);
    EXPECT_EQ(s.entries[2].type, type);
  }
  for (std::string_view name : {"fp8e4nv", "fp8e5", "fp8e4b15", "fp8e4b8", "fp8e5b16"}) {
    Signature s = parsed("*" + std::string(name) + ":16");
    EXPECT_EQ(s.entries[0].type, *parseScalarType(name)) << name;
  }
}

TEST(SignatureTest, IntegerScalarsTakeBothHints) {
  for (std::string_view name : {"i1", "i8", "i16", "i32", "i64", "u1", "u8", "u16", "u32", "u64"}) {
    EXPECT_EQ(parsed(std::string(name) + ":16").entries[0].hint, 16) << name;
    EXPECT_EQ(parsed(std::string(name) + ":1").entries[0].hint, 1) << name;
  }
}

TEST(SignatureTest, ToleratesWhitespaceAnywhereBetweenTokens) {
  Signature s = parsed("  * fp32 : 16 ,\ti32:16,1024  ,  BLOCK ");
  ASSERT_EQ(s.entries.size(), 4u);
  EXPECT_EQ(s.entries[0].kind, SignatureEntry::Kind::Pointer);
  EXPECT_EQ(s.entries[0].hint, 16);
  EXPECT_EQ(s.entries[0].text, "* fp32 : 16");
  EXPECT_EQ(s.entries[0].column, 3u);
  EXPECT_EQ(s.entries[1].text, "i32:16");
  EXPECT_EQ(s.entries[1].column, 17u);
  EXPECT_EQ(s.entries[3].text, "BLOCK");
  EXPECT_EQ(formatSignature(s), "*fp32:16, i32:16, 1024, BLOCK");
}

// ---- constexpr values ------------------------------------------------------------------------

TEST(SignatureTest, ParsesIntegerConstexprs) {
  EXPECT_EQ(value("0"), make(Kind::Int, 0));
  EXPECT_EQ(value("-1"), make(Kind::Int, -1));
  EXPECT_EQ(value("+7"), make(Kind::Int, 7));
  EXPECT_EQ(value("007"), make(Kind::Int, 7));
  EXPECT_EQ(value("0x10"), make(Kind::Int, 16));
  EXPECT_EQ(value("0XfF"), make(Kind::Int, 255));
  EXPECT_EQ(value("-0x10"), make(Kind::Int, -16));
  EXPECT_EQ(value("9223372036854775807"), make(Kind::Int, INT64_MAX));
  EXPECT_EQ(value("-9223372036854775808"), make(Kind::Int, INT64_MIN));
  EXPECT_EQ(value("0x10").text, "0x10"); // the literal as written is kept
}

TEST(SignatureTest, ParsesFloatConstexprs) {
  EXPECT_EQ(value("1.5"), make(Kind::Float, 0, 1.5));
  EXPECT_EQ(value("-0.5"), make(Kind::Float, 0, -0.5));
  EXPECT_EQ(value("1e-3"), make(Kind::Float, 0, 1e-3));
  EXPECT_EQ(value("1E+3"), make(Kind::Float, 0, 1000.0));
  EXPECT_EQ(value(".5"), make(Kind::Float, 0, 0.5));
  EXPECT_EQ(value("-.25"), make(Kind::Float, 0, -0.25));
  EXPECT_EQ(value("1."), make(Kind::Float, 0, 1.0));
  EXPECT_EQ(value("2e3").kind, Kind::Float); // as Python: an exponent makes a float
  EXPECT_EQ(value("1.0"), make(Kind::Float, 0, 1.0));
  EXPECT_NE(value("1.0"), value("1")); // a float is not an int of equal value
}

TEST(SignatureTest, ParsesBoolNoneStringDtypeAndNameConstexprs) {
  EXPECT_EQ(value("True"), make(Kind::Bool, 1));
  EXPECT_EQ(value("False"), make(Kind::Bool, 0));
  EXPECT_EQ(value("None"), make(Kind::None));
  EXPECT_EQ(value("'ieee'"), make(Kind::String, 0, 0, "ieee"));
  EXPECT_EQ(value("\"tf32\""), make(Kind::String, 0, 0, "tf32"));
  EXPECT_EQ(value("''"), make(Kind::String, 0, 0, ""));
  EXPECT_EQ(value("'a, b'"), make(Kind::String, 0, 0, "a, b"));
  EXPECT_EQ(value(R"('it\'s')"), make(Kind::String, 0, 0, "it's"));
  EXPECT_EQ(value(R"("say \"hi\"")"), make(Kind::String, 0, 0, "say \"hi\""));
  EXPECT_EQ(value(R"('back\\slash')"), make(Kind::String, 0, 0, "back\\slash"));
  EXPECT_EQ(value(R"("it's")"), make(Kind::String, 0, 0, "it's"));
  EXPECT_EQ(value("tl.float16"), make(Kind::Dtype, 0, 0, "float16"));
  EXPECT_EQ(value("triton.language.bfloat16"), make(Kind::Dtype, 0, 0, "bfloat16"));
  EXPECT_EQ(value("tl . int32"), make(Kind::Dtype, 0, 0, "int32"));
  EXPECT_EQ(value("BLOCK_SIZE"), make(Kind::Name, 0, 0, "BLOCK_SIZE"));
  EXPECT_EQ(value("_x1"), make(Kind::Name, 0, 0, "_x1"));
  EXPECT_EQ(value("  42  "), make(Kind::Int, 42));
}

TEST(SignatureTest, AcceptsEveryTritonDtype) {
  for (std::string_view name :
       {"int1", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
        "float8e5", "float8e5b16", "float8e4nv", "float8e4b8", "float8e4b15", "float16", "bfloat16",
        "float32", "float64"}) {
    EXPECT_EQ(value("tl." + std::string(name)), make(Kind::Dtype, 0, 0, std::string(name)));
    EXPECT_EQ(formatConstexpr(value("triton.language." + std::string(name))),
              "tl." + std::string(name));
  }
}

TEST(SignatureTest, ConstexprEntriesInASignature) {
  Signature s = parsed("-1, 0.5, True, False, None, 'ieee', \"a,b\", tl.float16, BLOCK, 0x20");
  ASSERT_EQ(s.entries.size(), 10u);
  for (const SignatureEntry &entry : s.entries)
    EXPECT_EQ(entry.kind, SignatureEntry::Kind::Constexpr);
  EXPECT_EQ(s.entries[0].value, make(Kind::Int, -1));
  EXPECT_EQ(s.entries[1].value, make(Kind::Float, 0, 0.5));
  EXPECT_EQ(s.entries[2].value, make(Kind::Bool, 1));
  EXPECT_EQ(s.entries[3].value, make(Kind::Bool, 0));
  EXPECT_EQ(s.entries[4].value, make(Kind::None));
  EXPECT_EQ(s.entries[5].value, make(Kind::String, 0, 0, "ieee"));
  EXPECT_EQ(s.entries[6].value, make(Kind::String, 0, 0, "a,b")); // the comma does not split
  EXPECT_EQ(s.entries[6].text, "\"a,b\"");
  EXPECT_EQ(s.entries[7].value, make(Kind::Dtype, 0, 0, "float16"));
  EXPECT_EQ(s.entries[8].value, make(Kind::Name, 0, 0, "BLOCK"));
  EXPECT_EQ(s.entries[9].value, make(Kind::Int, 32));
}

TEST(SignatureTest, QuotedCommasAndQuotesDoNotSplitEntries) {
  Signature s = parsed(R"(*fp32, 'a,b', "c',d", 'e\',f', i32)");
  ASSERT_EQ(s.entries.size(), 5u);
  EXPECT_EQ(s.entries[1].value.text, "a,b");
  EXPECT_EQ(s.entries[2].value.text, "c',d");
  EXPECT_EQ(s.entries[3].value.text, "e',f");
  EXPECT_EQ(s.entries[4].type, ScalarType::I32);
}

// ---- formatting and round trips --------------------------------------------------------------

TEST(SignatureTest, FormatsConstexprsCanonically) {
  EXPECT_EQ(formatConstexpr(value("1024")), "1024");
  EXPECT_EQ(formatConstexpr(value("-1")), "-1");
  EXPECT_EQ(formatConstexpr(value("0x10")), "16");
  EXPECT_EQ(formatConstexpr(value("+5")), "5");
  EXPECT_EQ(formatConstexpr(value("True")), "True");
  EXPECT_EQ(formatConstexpr(value("False")), "False");
  EXPECT_EQ(formatConstexpr(value("None")), "None");
  EXPECT_EQ(formatConstexpr(value("\"ieee\"")), "'ieee'");
  EXPECT_EQ(formatConstexpr(value(R"("it's")")), R"('it\'s')");
  EXPECT_EQ(formatConstexpr(value(R"('a\\b')")), R"('a\\b')");
  EXPECT_EQ(formatConstexpr(value("triton.language.float16")), "tl.float16");
  EXPECT_EQ(formatConstexpr(value("BLOCK")), "BLOCK");
}

TEST(SignatureTest, FormatsFloatsLikePythonRepr) {
  const std::pair<const char *, const char *> cases[] = {
      {"0.5", "0.5"},
      {"1.5", "1.5"},
      {"-0.5", "-0.5"},
      {"1.", "1.0"},
      {"100.0", "100.0"},
      {"0.1", "0.1"},
      {"1e-3", "0.001"},
      {"1e-4", "0.0001"},
      {"1e-5", "1e-05"},
      {"1.5e-7", "1.5e-07"},
      {"1e15", "1000000000000000.0"},
      {"1e16", "1e+16"},
      {"1.5e300", "1.5e+300"},
      {"0.0", "0.0"},
      {"-0.0", "-0.0"},
      {"123456789.125", "123456789.125"},
      {"0.30000000000000004", "0.30000000000000004"},
      {"2.5e-308", "2.5e-308"},
  };
  for (auto [input, expected] : cases)
    EXPECT_EQ(formatConstexpr(value(input)), expected) << input;
}

TEST(SignatureTest, FormattedValuesParseBackToTheSameValue) {
  for (std::string_view text : {"0",
                                "-1",
                                "1024",
                                "0x7fffffffffffffff",
                                "-9223372036854775808",
                                "0.5",
                                "1e-05",
                                "1e+16",
                                "1e300",
                                "0.1",
                                "3.141592653589793",
                                "-0.0",
                                "True",
                                "False",
                                "None",
                                "'ieee'",
                                R"("it's")",
                                R"('a\\b')",
                                "'a, b'",
                                "tl.float8e4nv",
                                "triton.language.int1",
                                "BLOCK"}) {
    ConstexprValue v = value(text);
    ConstexprValue again = value(formatConstexpr(v));
    EXPECT_EQ(again, v) << text;
    EXPECT_EQ(formatConstexpr(again), formatConstexpr(v)) << text;
  }
}

TEST(SignatureTest, FormatsEntriesAndSignatures) {
  Signature s = parsed("*f32:16,i32, i64:1 ,*bf16,  fp16, 0x40, 'x', tl.float32");
  EXPECT_EQ(formatEntry(s.entries[0]), "*fp32:16");
  EXPECT_EQ(formatEntry(s.entries[2]), "i64:1");
  EXPECT_EQ(formatSignature(s), "*fp32:16, i32, i64:1, *bf16, fp16, 64, 'x', tl.float32");
}

TEST(SignatureTest, SignatureRoundTrips) {
  for (std::string_view text :
       {"*fp32:16, *fp32:16, *fp32:16, i32:16, 1024",
        "*fp16, i64:1, u8, fp16, bf16, f32, fp64, i1, u1",
        "*fp8e4nv, *fp8e5:16, -1, 0x10, 1.5, -0.5, 1e-3, .5, True, False, None",
        "'ieee', \"a,b\", 'it\\'s', tl.float16, triton.language.bfloat16, BLOCK",
        " * i8 : 16 ,u64:1"}) {
    Signature s = parsed(text);
    Signature again = parsed(formatSignature(s));
    EXPECT_EQ(again.entries, s.entries) << text;
    EXPECT_EQ(formatSignature(again), formatSignature(s)) << text;
  }
}

TEST(SignatureTest, ValuesCompareByMeaningNotSpelling) {
  EXPECT_EQ(value("0x10"), value("16"));
  EXPECT_EQ(value("1e3"), value("1000.0"));
  EXPECT_EQ(value("'x'"), value("\"x\""));
  EXPECT_EQ(value("tl.float16"), value("triton.language.float16"));
  EXPECT_NE(value("True"), value("1"));
  EXPECT_NE(value("'BLOCK'"), value("BLOCK"));
  EXPECT_NE(value("tl.float16"), value("'float16'"));
}

// ---- errors ----------------------------------------------------------------------------------

TEST(SignatureTest, RejectsEmptySignaturesAndEntries) {
  Diagnostic d = errorOf("");
  EXPECT_EQ(d.message,
            "empty signature; expected comma-separated entries such as '*fp32:16, i32, 1024'");
  EXPECT_EQ(errorOf("  \t").message, d.message);

  d = errorOf("i32,,i64");
  EXPECT_EQ(d.message, "signature entry 2 is empty; expected a type or a constexpr value");
  EXPECT_EQ(d.column, 5);

  d = errorOf("i32, ,i64");
  EXPECT_EQ(d.message, "signature entry 2 is empty; expected a type or a constexpr value");
  EXPECT_EQ(d.column, 6);

  d = errorOf("i32,");
  EXPECT_EQ(d.message, "signature entry 2 is empty; expected a type or a constexpr value");
  EXPECT_EQ(d.column, 5);

  d = errorOf(",i32");
  EXPECT_EQ(d.message, "signature entry 1 is empty; expected a type or a constexpr value");
  EXPECT_EQ(d.column, 1);
}

TEST(SignatureTest, SuggestsTheClosestTypeForUnknownTypes) {
  Diagnostic d = errorOf("*fp32, i32, fp33");
  EXPECT_EQ(d.message, "signature entry 3 'fp33': unknown type 'fp33'; did you mean 'fp32'?");
  EXPECT_EQ(d.column, 13);

  d = errorOf("*fp33:16");
  EXPECT_EQ(d.message, "signature entry 1 '*fp33:16': unknown type 'fp33'; did you mean 'fp32'?");
  EXPECT_EQ(d.column, 2);

  EXPECT_EQ(errorOf("i31").message,
            "signature entry 1 'i31': unknown type 'i31'; did you mean 'i32'?");
  EXPECT_EQ(errorOf("u128").message,
            "signature entry 1 'u128': unknown type 'u128'; did you mean 'u16'?");
  EXPECT_EQ(errorOf("f16").message,
            "signature entry 1 'f16': unknown type 'f16'; did you mean 'fp16'?");
  EXPECT_EQ(errorOf("*fp8e4").message,
            "signature entry 1 '*fp8e4': unknown type 'fp8e4'; did you mean 'fp8e5'?");
  EXPECT_EQ(errorOf("*FP32").message,
            "signature entry 1 '*FP32': unknown type 'FP32'; did you mean 'fp32'?");
}

TEST(SignatureTest, SuggestsTritonSpellingForTorchAndDtypeNames) {
  Diagnostic d = errorOf("float32");
  EXPECT_EQ(d.message, "signature entry 1 'float32': unknown type 'float32'; did you mean 'fp32'?");
  ASSERT_EQ(d.notes.size(), 1u);
  EXPECT_EQ(d.notes[0], "a dtype constexpr is written tl.float32");

  EXPECT_EQ(errorOf("*bfloat16").message,
            "signature entry 1 '*bfloat16': unknown type 'bfloat16'; did you mean 'bf16'?");
  EXPECT_EQ(errorOf("int").message,
            "signature entry 1 'int': unknown type 'int'; did you mean 'i32'?");
  EXPECT_EQ(errorOf("bool").message,
            "signature entry 1 'bool': unknown type 'bool'; did you mean 'i1'?");
  EXPECT_TRUE(errorOf("bool").notes.empty());
  EXPECT_EQ(errorOf("*float8_e4m3fn").message,
            "signature entry 1 '*float8_e4m3fn': unknown type 'float8_e4m3fn'; did you mean "
            "'fp8e4nv'?");
}

TEST(SignatureTest, ListsTypesWhenNothingIsClose) {
  const std::string types = "i1, i8, i16, i32, i64, u1, u8, u16, u32, u64, fp16, bf16, fp32, "
                            "f32, fp64, fp8e4nv, fp8e5, fp8e4b15, fp8e4b8, fp8e5b16";
  EXPECT_EQ(errorOf("*xyz").message,
            "signature entry 1 '*xyz': unknown type 'xyz'; expected one of " + types);
  // A hint makes the name a type, so BLOCK:16 is not a constexpr name.
  Diagnostic d = errorOf("i32, BLOCK:16");
  EXPECT_EQ(d.message,
            "signature entry 2 'BLOCK:16': unknown type 'BLOCK'; expected one of " + types);
  EXPECT_EQ(d.column, 6);
}

TEST(SignatureTest, RejectsBadHints) {
  Diagnostic d = errorOf("*fp32, i32:8");
  EXPECT_EQ(d.message, "signature entry 2 'i32:8': hint 8 is not supported; use :16 (divisible by "
                       "16) or :1 (equal to 1)");
  EXPECT_EQ(d.column, 12);

  EXPECT_EQ(errorOf("i32:32").message,
            "signature entry 1 'i32:32': hint 32 is not supported; use :16 (divisible by 16) or "
            ":1 (equal to 1)");
  EXPECT_EQ(errorOf("i32:16.0").message,
            "signature entry 1 'i32:16.0': hint 16.0 is not supported; use :16 (divisible by 16) "
            "or :1 (equal to 1)");

  d = errorOf("*fp32:1");
  EXPECT_EQ(d.message, "signature entry 1 '*fp32:1': hint :1 (equal to 1) does not apply to a "
                       "pointer; use :16 (16-byte aligned) or no hint");
  EXPECT_EQ(d.column, 7);

  EXPECT_EQ(errorOf("*fp32:8").message,
            "signature entry 1 '*fp32:8': hint 8 is not supported on a pointer; use :16 (16-byte "
            "aligned) or no hint");

  d = errorOf("fp32:16");
  EXPECT_EQ(d.message, "signature entry 1 'fp32:16': hint :16 does not apply to a float scalar; "
                       "write fp32 with no hint");
  EXPECT_EQ(d.column, 6);
  EXPECT_EQ(errorOf("bf16:1").message,
            "signature entry 1 'bf16:1': hint :1 does not apply to a float scalar; write bf16 "
            "with no hint");
  EXPECT_EQ(errorOf("f32:16").message,
            "signature entry 1 'f32:16': hint :16 does not apply to a float scalar; write fp32 "
            "with no hint");

  d = errorOf("i32:");
  EXPECT_EQ(
      d.message,
      "signature entry 1 'i32:': expected a hint after ':' (16 or 1), got the end of the entry");
  EXPECT_EQ(d.column, 5);
  EXPECT_EQ(errorOf("i32:abc").message,
            "signature entry 1 'i32:abc': expected a hint after ':' (16 or 1), got 'abc'");
  EXPECT_EQ(errorOf("*i8:, i32").message,
            "signature entry 1 '*i8:': expected a hint after ':' (16), got the end of the entry");
}

TEST(SignatureTest, RejectsFp8Scalars) {
  Diagnostic d = errorOf("*fp8e4nv, fp8e4nv");
  EXPECT_EQ(d.message, "signature entry 2 'fp8e4nv': fp8e4nv can only be pointed to: use *fp8e4nv");
  EXPECT_EQ(d.column, 11);
  EXPECT_EQ(errorOf("fp8e5b16:16").message,
            "signature entry 1 'fp8e5b16:16': fp8e5b16 can only be pointed to: use *fp8e5b16");
}

TEST(SignatureTest, RejectsMalformedPointers) {
  Diagnostic d = errorOf("*");
  EXPECT_EQ(d.message,
            "signature entry 1 '*': expected a type after '*', got the end of the entry");
  EXPECT_EQ(d.column, 2);
  EXPECT_EQ(errorOf("*16").message, "signature entry 1 '*16': expected a type after '*', got '16'");
  EXPECT_EQ(errorOf("**fp32").message,
            "signature entry 1 '**fp32': expected a type after '*', got '*'");
}

TEST(SignatureTest, RejectsTrailingGarbage) {
  Diagnostic d = errorOf("*fp32, i32 i64");
  EXPECT_EQ(d.message, "signature entry 2 'i32 i64': unexpected 'i64' after 'i32'; expected ',' "
                       "before the next entry");
  EXPECT_EQ(d.column, 12);
  EXPECT_EQ(errorOf("*fp32:16:16").message,
            "signature entry 1 '*fp32:16:16': unexpected ':' after '*fp32:16'; expected ',' "
            "before the next entry");
  EXPECT_EQ(errorOf("1024:16").message,
            "signature entry 1 '1024:16': unexpected ':' after '1024'; expected ',' before the "
            "next entry");
  EXPECT_EQ(errorOf("BLOCK SIZE").message,
            "signature entry 1 'BLOCK SIZE': unexpected 'SIZE' after 'BLOCK'; expected ',' before "
            "the next entry");
  EXPECT_EQ(errorOf("'a' 'b'").message,
            "signature entry 1 ''a' 'b'': unexpected ''b'' after ''a''; expected ',' before the "
            "next entry");

  d = errorOf("i32 @");
  EXPECT_EQ(d.message, "signature entry 1 'i32 @': unexpected character '@'; expected a type, a "
                       "value or a name");
  EXPECT_EQ(d.column, 5);
  EXPECT_EQ(errorOf("i32;i64").message,
            "signature entry 1 'i32;i64': unexpected character ';'; expected a type, a value or a "
            "name");
  EXPECT_EQ(errorOf("tensordesc<fp16[64 64]>").message,
            "signature entry 1 'tensordesc<fp16[64 64]>': expected ']' after the block shape; "
            "expected tensordesc<TYPE[BLOCK, ...]>, e.g. tensordesc<fp16[128, 64]>");
  EXPECT_EQ(errorOf("tensordesc<fp17[64]>").message,
            "signature entry 1 'tensordesc<fp17[64]>': unknown element type 'fp17'; expected "
            "tensordesc<TYPE[BLOCK, ...]>, e.g. tensordesc<fp16[128, 64]>");
  EXPECT_EQ(errorOf("tensordesc<fp16[512]>").message,
            "signature entry 1 'tensordesc<fp16[512]>': block dimension 512 is out of range; TMA "
            "boxes are 1 to 256 elements per dimension");
}

TEST(SignatureTest, HostTensorDescriptorsAsUpstreamSpellsThem) {
  Expected<Signature> s =
      parseSignature("tensordesc<fp16[128,64]>, *fp32:16, b_desc=tensordesc< bf16[ 64 , 32 , 2] >");
  ASSERT_TRUE(s) << s.error().message;
  ASSERT_EQ(s->entries.size(), 3u) << "commas inside the brackets do not split entries";
  EXPECT_EQ(s->entries[0].kind, SignatureEntry::Kind::TensorDesc);
  EXPECT_EQ(s->entries[0].type, ScalarType::FP16);
  EXPECT_EQ(s->entries[0].blockShape, (std::vector<std::int64_t>{128, 64}));
  EXPECT_EQ(s->entries[1].kind, SignatureEntry::Kind::Pointer);
  EXPECT_EQ(s->entries[2].keyword, "b_desc");
  EXPECT_EQ(s->entries[2].blockShape, (std::vector<std::int64_t>{64, 32, 2}));
  EXPECT_EQ(formatSignature(*s),
            "tensordesc<fp16[128, 64]>, *fp32:16, b_desc=tensordesc<bf16[64, 32, 2]>");
  Expected<Signature> again = parseSignature(formatSignature(*s));
  ASSERT_TRUE(again);
  EXPECT_EQ(again->entries, s->entries);
}

TEST(SignatureTest, RejectsBadStrings) {
  Diagnostic d = errorOf("i32, 'abc");
  EXPECT_EQ(d.message, "signature entry 2 ''abc': unterminated string; expected a closing '");
  EXPECT_EQ(d.column, 6);
  EXPECT_EQ(errorOf("\"a,b").message,
            "signature entry 1 '\"a,b': unterminated string; expected a closing \"");
  d = errorOf(R"('a\nb')");
  EXPECT_EQ(d.message,
            R"(signature entry 1 ''a\nb'': unknown escape '\n' in string; expected \\, \' or \")");
  EXPECT_EQ(d.column, 3);
}

TEST(SignatureTest, RejectsBadNumbers) {
  const std::string forms =
      "expected an integer such as 42, -1 or 0x10, or a float such as 0.5 or 1e-3";
  Diagnostic d = errorOf("*fp32, 12abc");
  EXPECT_EQ(d.message, "signature entry 2 '12abc': '12abc' is not a valid number; " + forms);
  EXPECT_EQ(d.column, 8);
  EXPECT_EQ(errorOf("1.2.3").message,
            "signature entry 1 '1.2.3': '1.2.3' is not a valid number; " + forms);
  EXPECT_EQ(errorOf("0x").message, "signature entry 1 '0x': '0x' is not a valid number; " + forms);
  EXPECT_EQ(errorOf("0x1g").message,
            "signature entry 1 '0x1g': '0x1g' is not a valid number; " + forms);
  EXPECT_EQ(errorOf("1e").message, "signature entry 1 '1e': '1e' is not a valid number; " + forms);
  EXPECT_EQ(errorOf("1_000").message,
            "signature entry 1 '1_000': '1_000' is not a valid number; " + forms);
  EXPECT_EQ(errorOf("9223372036854775808").message,
            "signature entry 1 '9223372036854775808': integer 9223372036854775808 is out of "
            "range; expected a value that fits in 64 bits");
  EXPECT_EQ(errorOf("-9223372036854775809").message,
            "signature entry 1 '-9223372036854775809': integer -9223372036854775809 is out of "
            "range; expected a value that fits in 64 bits");
  EXPECT_EQ(errorOf("1e999").message,
            "signature entry 1 '1e999': float 1e999 is out of range; expected a value a 64-bit "
            "float can hold");
}

TEST(SignatureTest, RejectsBadDtypesAndKeywords) {
  Diagnostic d = errorOf("i32, tl.float33");
  EXPECT_EQ(
      d.message,
      "signature entry 2 'tl.float33': unknown dtype 'tl.float33'; did you mean 'tl.float32'?");
  EXPECT_EQ(d.column, 9);
  EXPECT_EQ(errorOf("tl.fp32").message,
            "signature entry 1 'tl.fp32': unknown dtype 'tl.fp32'; expected a triton.language "
            "dtype such as tl.float16, tl.bfloat16 or tl.int32");
  EXPECT_EQ(errorOf("np.float16").message,
            "signature entry 1 'np.float16': 'np.float16' is not a valid value; expected a dtype "
            "such as tl.float16");
  EXPECT_EQ(errorOf("tl.").message,
            "signature entry 1 'tl.': expected a name after '.', got the end of the entry");
  EXPECT_EQ(errorOf("true").message,
            "signature entry 1 'true': 'true' is not a value; did you mean True?");
  EXPECT_EQ(errorOf("FALSE").message,
            "signature entry 1 'FALSE': 'FALSE' is not a value; did you mean False?");
  EXPECT_EQ(errorOf("none").message,
            "signature entry 1 'none': 'none' is not a value; did you mean None?");
}

TEST(SignatureTest, ParseConstexprErrorsStandAlone) {
  Expected<ConstexprValue> v = parseConstexpr("");
  ASSERT_FALSE(v);
  EXPECT_EQ(v.error().message, "empty value; expected a number, True, False, None, a quoted "
                               "string, a dtype such as tl.float16 or a name");
  v = parseConstexpr("i32");
  ASSERT_FALSE(v);
  EXPECT_EQ(v.error().message,
            "'i32' is a type, not a constexpr value; expected a number, True, "
            "False, None, a quoted string, a dtype such as tl.float16 or a name");
  v = parseConstexpr(" *fp32");
  ASSERT_FALSE(v);
  EXPECT_EQ(v.error().message, "'*fp32' is a type, not a constexpr value; expected a number, "
                               "True, False, None, a quoted string, a dtype such as tl.float16 or "
                               "a name");
  EXPECT_EQ(v.error().column, 2);
  v = parseConstexpr("1 2");
  ASSERT_FALSE(v);
  EXPECT_EQ(v.error().message, "unexpected '2' after '1'; expected the end of the value");
  EXPECT_EQ(v.error().column, 3);
  EXPECT_EQ(v.error().sourceLine, "1 2");
  v = parseConstexpr(":");
  ASSERT_FALSE(v);
  EXPECT_EQ(v.error().message, "expected a constexpr value (a number, True, False, None, a quoted "
                               "string, a dtype such as tl.float16 or a name), got ':'");
  v = parseConstexpr("- 5");
  ASSERT_FALSE(v);
  EXPECT_EQ(v.error().message, "unexpected character '-'; expected a type, a value or a name");
}

TEST(SignatureTest, ErrorsCarryTheSignatureForTheCaret) {
  Diagnostic d = errorOf("*fp32:16, i32:8, 1024");
  d.file = "<signature>";
  d.line = 1;
  EXPECT_EQ(formatDiagnostic(d),
            "<signature>:1:15: error: signature entry 2 'i32:8': hint 8 is not supported; use :16 "
            "(divisible by 16) or :1 (equal to 1)\n"
            "  *fp32:16, i32:8, 1024\n"
            "                ^\n");
}

} // namespace
} // namespace tta
