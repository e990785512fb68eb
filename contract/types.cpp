#include "contract/types.h"

#include <array>

namespace tta {

namespace {

// Indexed by ScalarType. Float scalars are passed with their own width (fp16/bf16 as their 16
// bits), not as double like upstream's ty_to_cpp, which corrupts them (triton-aot.md §2.1).
constexpr std::array<ScalarTypeInfo, 19> kTypes = {{
    {ScalarType::I1, "i1", "int8_t", 1, false, true, true},
    {ScalarType::I8, "i8", "int8_t", 1, false, true, true},
    {ScalarType::I16, "i16", "int16_t", 2, false, true, true},
    {ScalarType::I32, "i32", "int32_t", 4, false, true, true},
    {ScalarType::I64, "i64", "int64_t", 8, false, true, true},
    {ScalarType::U1, "u1", "uint8_t", 1, false, false, true},
    {ScalarType::U8, "u8", "uint8_t", 1, false, false, true},
    {ScalarType::U16, "u16", "uint16_t", 2, false, false, true},
    {ScalarType::U32, "u32", "uint32_t", 4, false, false, true},
    {ScalarType::U64, "u64", "uint64_t", 8, false, false, true},
    {ScalarType::FP16, "fp16", "uint16_t", 2, true, true, true},
    {ScalarType::BF16, "bf16", "uint16_t", 2, true, true, true},
    {ScalarType::FP32, "fp32", "float", 4, true, true, true},
    {ScalarType::FP64, "fp64", "double", 8, true, true, true},
    {ScalarType::FP8E4NV, "fp8e4nv", "uint8_t", 1, true, true, false},
    {ScalarType::FP8E5, "fp8e5", "uint8_t", 1, true, true, false},
    {ScalarType::FP8E4B15, "fp8e4b15", "uint8_t", 1, true, true, false},
    {ScalarType::FP8E4B8, "fp8e4b8", "uint8_t", 1, true, true, false},
    {ScalarType::FP8E5B16, "fp8e5b16", "uint8_t", 1, true, true, false},
}};

} // namespace

std::optional<ScalarType> parseScalarType(std::string_view name) {
  if (name == "f32") // upstream's alias, kept so existing signatures work
    return ScalarType::FP32;
  for (const ScalarTypeInfo &info : kTypes)
    if (info.name == name)
      return info.type;
  return std::nullopt;
}

const ScalarTypeInfo &typeInfo(ScalarType type) { return kTypes[static_cast<std::size_t>(type)]; }

std::string allScalarTypeNames() {
  std::string out;
  for (const ScalarTypeInfo &info : kTypes) {
    if (!out.empty())
      out += ", ";
    out += info.name;
    if (info.type == ScalarType::FP32)
      out += ", f32";
  }
  return out;
}

} // namespace tta
