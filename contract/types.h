// Triton's scalar types as they appear in signatures, with their C spelling and exact size.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace tta {

enum class ScalarType {
  I1, I8, I16, I32, I64,
  U1, U8, U16, U32, U64,
  FP16, BF16, FP32, FP64,
  // fp8 formats: only as pointee types (a pointer to fp8 data); there is no fp8 scalar argument.
  FP8E4NV, FP8E5, FP8E4B15, FP8E4B8, FP8E5B16,
};

struct ScalarTypeInfo {
  ScalarType type;
  std::string_view name;   ///< Triton's spelling: "i32", "fp16", "fp8e4nv"
  std::string_view cType;  ///< exact-width C type a launcher stores: "int32_t", "uint16_t" (fp16 bits)
  std::size_t size;        ///< bytes of the kernel parameter (i1 is passed as 1 byte)
  bool isFloat;
  bool isSigned;
  bool scalarAllowed;      ///< false for fp8 (pointee only)
};

/// Parses a Triton type name ("fp32", its alias "f32", "i1", ..., "fp8e5"). Case-sensitive.
std::optional<ScalarType> parseScalarType(std::string_view name);
const ScalarTypeInfo &typeInfo(ScalarType type);
/// Every spelling parseScalarType accepts, for "expected one of" messages.
std::string allScalarTypeNames();

} // namespace tta
