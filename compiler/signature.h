// The signature grammar of triton-aot-cc (a superset of upstream compile.py's):
//
//   signature := entry (',' entry)*            whitespace anywhere between tokens
//   entry     := [name '='] (pointer | scalar | tensordesc | constexpr)
//                                               by name (COMPUTE_DW=False): after the positional
//                                               entries; parameters with defaults may be left out
//   pointer   := '*' type [':' 16]              e.g. *fp32:16, *fp8e4nv
//   scalar    := type [':' (16 | 1)]           e.g. i32:16, i64:1, fp16
//   tensordesc:= 'tensordesc<' type '[' int (',' int)* ']>'
//                                               a host TensorDescriptor parameter, as upstream
//                                               compile.py spells it: tensordesc<fp16[128, 64]>
//   constexpr := integer | float | 'True' | 'False' | 'None'
//              | string                         "ieee" or 'ieee' (quotes may hold commas)
//              | dtype                          tl.float16, tl.bfloat16, tl.int32 ...
//              | name                           BLOCK: the value comes from the config, else
//                                               from the kernel when it names the parameter in
//                                               whose place it is (a heuristic's value, the
//                                               default): resolveSignature, resolveKernelNames
#pragma once

#include "contract/diagnostic.h"
#include "contract/types.h"

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace tta {

struct ConstexprValue {
  enum class Kind { Int, Float, Bool, String, Dtype, None, Name };
  Kind kind = Kind::Int;
  std::int64_t intValue = 0;   ///< Int; Bool as 0/1
  double floatValue = 0;       ///< Float
  std::string text;            ///< String contents, Dtype name ("float16"), Name, or the literal as written

  /// Compares meaning, not spelling (the literal in \c text is ignored for Int, Float, Bool and
  /// None), so 0x10 equals 16 and a parsed value equals one built by hand.
  bool operator==(const ConstexprValue &other) const;
};

/// The canonical spelling of a value ("1024", "-1", "0.5", "True", "'ieee'", "tl.float16", "BLOCK").
std::string formatConstexpr(const ConstexprValue &value);
/// Parses one value with the constexpr grammar (used for config strings too).
Expected<ConstexprValue> parseConstexpr(std::string_view text);

struct SignatureEntry {
  enum class Kind { Pointer, Scalar, Constexpr, TensorDesc };
  Kind kind = Kind::Scalar;
  ScalarType type = ScalarType::I32;   ///< Pointer: the pointee; Scalar: the type; TensorDesc: the element
  std::vector<std::int64_t> blockShape; ///< TensorDesc only: the block shape, outermost first
  int hint = 0;                        ///< 0 (none), 16 (divisible by 16 / 16-byte aligned), 1 (equal to 1)
  ConstexprValue value;                ///< Constexpr only
  std::size_t column = 0;              ///< 1-based column of the entry in the signature text
  std::string text;                    ///< the entry as written, trimmed
  std::string keyword;                 ///< the parameter it names ("COMPUTE_DW="), "" if positional

  bool operator==(const SignatureEntry &other) const {
    return kind == other.kind && type == other.type && hint == other.hint && value == other.value &&
           keyword == other.keyword && blockShape == other.blockShape;
  }
};

struct Signature {
  std::vector<SignatureEntry> entries;
  std::string text;                    ///< as given
};

/// Parses a signature. Errors name the entry (1-based position and text), its column and what
/// was expected, e.g. "signature entry 3 'fp33': unknown type; expected one of ...".
Expected<Signature> parseSignature(std::string_view text);
/// Canonical form: entries joined by ", " ("*fp32:16, i32, 1024, COMPUTE_DW=False").
std::string formatSignature(const Signature &signature);
/// Canonical form of one entry ("*fp32:16", "COMPUTE_DW=False").
std::string formatEntry(const SignatureEntry &entry);

/// The other spellings of scalar types the signature grammar recognises, to say "did you mean"
/// ("float32" -> "fp32"): (alias, type) pairs. cmake/TritonAOTSignature.cmake keeps a copy.
std::vector<std::pair<std::string, std::string>> typeSpellingAliases();

} // namespace tta
