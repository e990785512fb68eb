#include "contract/types.h"

#include <gtest/gtest.h>

#include <tuple>

namespace tta {
namespace {

struct TypeRow {
  std::string_view name;
  ScalarType type;
  std::string_view cType;
  std::size_t size;
  bool isFloat, isSigned, scalarAllowed;
};

const TypeRow kRows[] = {
    {"i1", ScalarType::I1, "int8_t", 1, false, true, true},
    {"i8", ScalarType::I8, "int8_t", 1, false, true, true},
    {"i16", ScalarType::I16, "int16_t", 2, false, true, true},
    {"i32", ScalarType::I32, "int32_t", 4, false, true, true},
    {"i64", ScalarType::I64, "int64_t", 8, false, true, true},
    {"u1", ScalarType::U1, "uint8_t", 1, false, false, true},
    {"u8", ScalarType::U8, "uint8_t", 1, false, false, true},
    {"u16", ScalarType::U16, "uint16_t", 2, false, false, true},
    {"u32", ScalarType::U32, "uint32_t", 4, false, false, true},
    {"u64", ScalarType::U64, "uint64_t", 8, false, false, true},
    {"fp16", ScalarType::FP16, "uint16_t", 2, true, true, true},
    {"bf16", ScalarType::BF16, "uint16_t", 2, true, true, true},
    {"fp32", ScalarType::FP32, "float", 4, true, true, true},
    {"fp64", ScalarType::FP64, "double", 8, true, true, true},
    {"fp8e4nv", ScalarType::FP8E4NV, "uint8_t", 1, true, true, false},
    {"fp8e5", ScalarType::FP8E5, "uint8_t", 1, true, true, false},
    {"fp8e4b15", ScalarType::FP8E4B15, "uint8_t", 1, true, true, false},
    {"fp8e4b8", ScalarType::FP8E4B8, "uint8_t", 1, true, true, false},
    {"fp8e5b16", ScalarType::FP8E5B16, "uint8_t", 1, true, true, false},
};

TEST(TypesTest, EveryTypeHasItsSpellingAndExactCType) {
  for (const TypeRow &row : kRows) {
    SCOPED_TRACE(row.name);
    std::optional<ScalarType> type = parseScalarType(row.name);
    ASSERT_TRUE(type);
    EXPECT_EQ(*type, row.type);
    const ScalarTypeInfo &info = typeInfo(row.type);
    EXPECT_EQ(info.type, row.type);
    EXPECT_EQ(info.name, row.name);
    EXPECT_EQ(info.cType, row.cType);
    EXPECT_EQ(info.size, row.size);
    EXPECT_EQ(std::tie(info.isFloat, info.isSigned, info.scalarAllowed),
              std::tie(row.isFloat, row.isSigned, row.scalarAllowed));
  }
}

TEST(TypesTest, F32IsAnAliasOfFp32) {
  EXPECT_EQ(parseScalarType("f32"), ScalarType::FP32);
  EXPECT_EQ(typeInfo(ScalarType::FP32).name, "fp32"); // the canonical spelling
}

TEST(TypesTest, RejectsUnknownAndWrongCaseNames) {
  for (std::string_view name : {"", "FP32", "I32", "i33", "fp8", "float32", "int32", "u128", " i32",
                                "i32 ", "*fp32", "bool", "f16"})
    EXPECT_FALSE(parseScalarType(name)) << name;
}

TEST(TypesTest, SizesMatchTheCTypes) {
  EXPECT_EQ(typeInfo(ScalarType::I64).size, sizeof(std::int64_t));
  EXPECT_EQ(typeInfo(ScalarType::FP32).size, sizeof(float));
  EXPECT_EQ(typeInfo(ScalarType::FP64).size, sizeof(double));
}

TEST(TypesTest, AllScalarTypeNamesListsEverySpelling) {
  EXPECT_EQ(allScalarTypeNames(),
            "i1, i8, i16, i32, i64, u1, u8, u16, u32, u64, fp16, bf16, fp32, f32, fp64, "
            "fp8e4nv, fp8e5, fp8e4b15, fp8e4b8, fp8e5b16");
}

} // namespace
} // namespace tta
