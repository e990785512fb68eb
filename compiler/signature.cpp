#include "compiler/signature.h"

#include "contract/lexing.h"
#include "contract/spelling.h"

#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <optional>
#include <utility>

namespace tta {

namespace {

// ---- tokens ----------------------------------------------------------------------------------

enum class Tok { End, Star, Colon, Dot, Ident, Number, String };

struct Token {
  Tok kind = Tok::End;
  std::size_t pos = 0;  ///< offset in the whole text
  std::string_view raw; ///< as written
  std::string value;    ///< String: the contents, escapes resolved
};


/// An error whose context (which entry) the caller adds: message is the reason alone.
Diagnostic failAt(std::size_t pos, std::string reason) {
  Diagnostic diag = makeError(ExitCode::UsageError, std::move(reason));
  diag.column = static_cast<int>(pos + 1);
  return diag;
}

std::string quoted(std::string_view text) { return "'" + std::string(text) + "'"; }

std::string describe(const Token &token, std::string_view atEnd) {
  return token.kind == Tok::End ? std::string(atEnd) : quoted(token.raw);
}

std::string describeChar(char c) {
  if (static_cast<unsigned char>(c) >= 0x20 && static_cast<unsigned char>(c) < 0x7f)
    return quoted(std::string_view(&c, 1));
  static const char kHex[] = "0123456789abcdef";
  auto byte = static_cast<unsigned char>(c);
  return std::string("byte 0x") + kHex[byte >> 4] + kHex[byte & 15];
}

/// Scans a quoted string starting at \p i (on the quote). Only the quotes and the backslash can
/// be escaped: anything else would have to follow Python's rules to mean the same to the kernel.
Expected<Token> lexString(std::string_view text, std::size_t i, std::size_t end) {
  Token token{Tok::String, i, {}, {}};
  const char quote = text[i];
  for (std::size_t j = i + 1; j < end; ++j) {
    char c = text[j];
    if (c == quote) {
      token.raw = text.substr(i, j + 1 - i);
      return token;
    }
    if (c == '\\') {
      char next = j + 1 < end ? text[j + 1] : '\0';
      if (next != '\\' && next != '\'' && next != '"')
        return failAt(j, "unknown escape '\\" + std::string(next ? 1 : 0, next) +
                             "' in string; expected \\\\, \\' or \\\"");
      token.value += next;
      ++j;
      continue;
    }
    token.value += c;
  }
  return failAt(i, std::string("unterminated string; expected a closing ") + quote);
}

/// Splits text[begin, end) into tokens, ending with an End token at \p end.
Expected<std::vector<Token>> lex(std::string_view text, std::size_t begin, std::size_t end) {
  std::vector<Token> tokens;
  std::size_t i = begin;
  for (;;) {
    while (i < end && isSpace(text[i]))
      ++i;
    if (i == end) {
      tokens.push_back({Tok::End, end, {}, {}});
      return tokens;
    }
    const std::size_t start = i;
    const char c = text[i];
    const char next = i + 1 < end ? text[i + 1] : '\0';
    const char next2 = i + 2 < end ? text[i + 2] : '\0';
    if (c == '\'' || c == '"') {
      Expected<Token> token = lexString(text, i, end);
      if (!token)
        return token.takeError();
      i += token->raw.size();
      tokens.push_back(std::move(*token));
      continue;
    }
    Tok kind;
    if (c == '*' || c == ':') {
      kind = c == '*' ? Tok::Star : Tok::Colon;
      ++i;
    } else if (isDigit(c) || (c == '.' && isDigit(next)) ||
               ((c == '-' || c == '+') && (isDigit(next) || (next == '.' && isDigit(next2))))) {
      // Take the whole run, then validate it: "12abc" is one bad number, not 12 and a name.
      kind = Tok::Number;
      i += c == '-' || c == '+' ? 1 : 0;
      const bool hex = i + 1 < end && text[i] == '0' && (text[i + 1] == 'x' || text[i + 1] == 'X');
      while (i < end && (isIdentChar(text[i]) || text[i] == '.' ||
                         (!hex && (text[i] == '+' || text[i] == '-') &&
                          (text[i - 1] == 'e' || text[i - 1] == 'E'))))
        ++i;
    } else if (c == '.') {
      kind = Tok::Dot;
      ++i;
    } else if (isIdentStart(c)) {
      kind = Tok::Ident;
      while (i < end && isIdentChar(text[i]))
        ++i;
    } else {
      return failAt(i, "unexpected character " + describeChar(c) +
                           "; expected a type, a value or a name");
    }
    tokens.push_back({kind, start, text.substr(start, i - start), {}});
  }
}

// ---- values ----------------------------------------------------------------------------------

// triton.language's dtypes (core.py), by their Python names.
constexpr std::string_view kDtypes[] = {
    "int1",       "int8",        "int16",   "int32",    "int64",       "uint8",
    "uint16",     "uint32",      "uint64",  "float8e5", "float8e5b16", "float8e4nv",
    "float8e4b8", "float8e4b15", "float16", "bfloat16", "float32",     "float64"};

constexpr const char *kNumberForms =
    "expected an integer such as 42, -1 or 0x10, or a float such as 0.5 or 1e-3";

bool allOf(std::string_view text, bool (*pred)(char)) {
  for (char c : text)
    if (!pred(c))
      return false;
  return !text.empty();
}

bool isHexDigit(char c) { return std::isxdigit(static_cast<unsigned char>(c)) != 0; }

/// Python float syntax without underscores, inf or nan: digits, an optional fraction and an
/// optional exponent, with at least one digit before the exponent.
bool isFloatSyntax(std::string_view s) {
  std::size_t i = 0, mantissaDigits = 0;
  while (i < s.size() && isDigit(s[i]))
    ++i, ++mantissaDigits;
  if (i < s.size() && s[i] == '.')
    for (++i; i < s.size() && isDigit(s[i]); ++i)
      ++mantissaDigits;
  if (mantissaDigits == 0)
    return false;
  if (i < s.size() && (s[i] == 'e' || s[i] == 'E')) {
    ++i;
    if (i < s.size() && (s[i] == '+' || s[i] == '-'))
      ++i;
    if (!allOf(s.substr(i), isDigit))
      return false;
    i = s.size();
  }
  return i == s.size();
}

Expected<ConstexprValue> parseNumber(const Token &token) {
  std::string_view body = token.raw;
  const bool negative = body[0] == '-';
  if (body[0] == '-' || body[0] == '+')
    body.remove_prefix(1);
  ConstexprValue value;
  value.text = std::string(token.raw);
  const bool hex = body.size() > 1 && body[0] == '0' && (body[1] == 'x' || body[1] == 'X');
  std::string_view digits = hex ? body.substr(2) : body;
  if (hex ? allOf(digits, isHexDigit) : allOf(digits, isDigit)) {
    std::uint64_t magnitude = 0;
    auto [ptr, ec] =
        std::from_chars(digits.data(), digits.data() + digits.size(), magnitude, hex ? 16 : 10);
    const std::uint64_t limit = negative ? std::uint64_t{1} << 63 : (std::uint64_t{1} << 63) - 1;
    if (ec != std::errc() || magnitude > limit)
      return failAt(token.pos, "integer " + std::string(token.raw) +
                                   " is out of range; expected a value that fits in 64 bits");
    value.kind = ConstexprValue::Kind::Int;
    value.intValue =
        negative ? static_cast<std::int64_t>(0 - magnitude) : static_cast<std::int64_t>(magnitude);
    return value;
  }
  if (hex || !isFloatSyntax(body))
    return failAt(token.pos, quoted(token.raw) + " is not a valid number; " + kNumberForms);
  // from_chars takes no '+', but does take '-'.
  std::string_view parsable = token.raw[0] == '+' ? token.raw.substr(1) : token.raw;
  double number = 0;
  auto [ptr, ec] = std::from_chars(parsable.data(), parsable.data() + parsable.size(), number);
  if (ec != std::errc() || !std::isfinite(number))
    return failAt(token.pos, "float " + std::string(token.raw) +
                                 " is out of range; expected a value a 64-bit float can hold");
  value.kind = ConstexprValue::Kind::Float;
  value.floatValue = number;
  return value;
}

/// Parses "tl.<dtype>" or "triton.language.<dtype>" starting at tokens[i] (an Ident).
Expected<ConstexprValue> parseDotted(const std::vector<Token> &tokens, std::size_t &i,
                                     std::string_view text, std::string_view atEnd) {
  const std::size_t start = tokens[i].pos;
  std::vector<std::string_view> parts{tokens[i].raw};
  std::size_t end = tokens[i].pos + tokens[i].raw.size();
  ++i;
  while (tokens[i].kind == Tok::Dot) {
    if (tokens[i + 1].kind != Tok::Ident)
      return failAt(tokens[i + 1].pos,
                    "expected a name after '.', got " + describe(tokens[i + 1], atEnd));
    parts.push_back(tokens[i + 1].raw);
    end = tokens[i + 1].pos + tokens[i + 1].raw.size();
    i += 2;
  }
  const std::string_view path = text.substr(start, end - start);
  const bool shortPrefix = parts.size() == 2 && parts[0] == "tl";
  const bool longPrefix = parts.size() == 3 && parts[0] == "triton" && parts[1] == "language";
  if (!shortPrefix && !longPrefix)
    return failAt(start,
                  quoted(path) + " is not a valid value; expected a dtype such as tl.float16");
  std::string_view name = parts.back();
  for (std::string_view dtype : kDtypes)
    if (dtype == name) {
      ConstexprValue value;
      value.kind = ConstexprValue::Kind::Dtype;
      value.text = std::string(name);
      return value;
    }
  std::vector<std::string> names(std::begin(kDtypes), std::end(kDtypes));
  std::string message = "unknown dtype " + quoted(path);
  if (std::optional<std::string> guess = closestMatch(name, names))
    message += "; did you mean 'tl." + *guess + "'?";
  else
    message += "; expected a triton.language dtype such as tl.float16, tl.bfloat16 or tl.int32";
  return failAt(tokens[i - 1].pos, std::move(message));
}

/// "true" or "NONE" for True or None: a case slip, not a parameter name anyone would choose.
std::optional<std::string> caseSlip(std::string_view word) {
  for (std::string_view keyword : {"True", "False", "None"}) {
    bool same = word.size() == keyword.size() && word != keyword;
    for (std::size_t k = 0; same && k < word.size(); ++k)
      same = std::tolower(static_cast<unsigned char>(word[k])) ==
             std::tolower(static_cast<unsigned char>(keyword[k]));
    if (same)
      return std::string(keyword);
  }
  return std::nullopt;
}

/// Parses one value at tokens[i]; \p atEnd names the end of input in messages.
Expected<ConstexprValue> parseValue(const std::vector<Token> &tokens, std::size_t &i,
                                    std::string_view text, std::string_view atEnd) {
  const Token &token = tokens[i];
  ConstexprValue value;
  switch (token.kind) {
  case Tok::Number:
    ++i;
    return parseNumber(token);
  case Tok::String:
    ++i;
    value.kind = ConstexprValue::Kind::String;
    value.text = token.value;
    return value;
  case Tok::Ident:
    if (tokens[i + 1].kind == Tok::Dot)
      return parseDotted(tokens, i, text, atEnd);
    ++i;
    value.text = std::string(token.raw);
    if (token.raw == "True" || token.raw == "False") {
      value.kind = ConstexprValue::Kind::Bool;
      value.intValue = token.raw == "True";
    } else if (token.raw == "None") {
      value.kind = ConstexprValue::Kind::None;
    } else if (std::optional<std::string> keyword = caseSlip(token.raw)) {
      return failAt(token.pos,
                    quoted(token.raw) + " is not a value; did you mean " + *keyword + "?");
    } else {
      value.kind = ConstexprValue::Kind::Name;
    }
    return value;
  default:
    return failAt(token.pos, "expected a constexpr value (a number, True, False, None, a quoted "
                             "string, a dtype such as tl.float16 or a name), got " +
                                 describe(token, atEnd));
  }
}

// ---- types in signatures ---------------------------------------------------------------------

// Spellings of Triton's type_canonicalisation_dict and the dtype names: a user writing these
// means a type, so they get a suggestion instead of silently becoming a constexpr name.
constexpr std::pair<std::string_view, std::string_view> kTypeAliases[] = {
    {"bool", "i1"},
    {"int1", "i1"},
    {"uint1", "u1"},
    {"int8", "i8"},
    {"int16", "i16"},
    {"int", "i32"},
    {"int32", "i32"},
    {"int64", "i64"},
    {"uint8", "u8"},
    {"uint16", "u16"},
    {"uint32", "u32"},
    {"uint64", "u64"},
    {"half", "fp16"},
    {"float16", "fp16"},
    {"bfloat16", "bf16"},
    {"float", "fp32"},
    {"float32", "fp32"},
    {"double", "fp64"},
    {"float64", "fp64"},
    {"float8e4nv", "fp8e4nv"},
    {"float8e5", "fp8e5"},
    {"float8e4b15", "fp8e4b15"},
    {"float8e4b8", "fp8e4b8"},
    {"float8e5b16", "fp8e5b16"},
    {"float8_e4m3fn", "fp8e4nv"},
    {"float8_e5m2", "fp8e5"},
    {"float8_e4m3fnuz", "fp8e4b8"},
    {"float8_e5m2fnuz", "fp8e5b16"},
    {"f16", "fp16"},
    {"f64", "fp64"},
};

std::optional<std::string_view> typeAlias(std::string_view name) {
  for (auto [alias, type] : kTypeAliases)
    if (alias == name)
      return type;
  return std::nullopt;
}

/// "i31", "fp33", "bf8", "u128": a type prefix right before a digit.
bool looksLikeType(std::string_view name) {
  for (std::string_view prefix : {"i", "u", "f", "fp", "bf"})
    if (name.size() > prefix.size() && name.substr(0, prefix.size()) == prefix &&
        isDigit(name[prefix.size()]))
      return true;
  return typeAlias(name).has_value();
}

std::vector<std::string> typeNames() {
  std::vector<std::string> names;
  for (int t = 0; t <= static_cast<int>(ScalarType::FP8E5B16); ++t)
    names.emplace_back(typeInfo(static_cast<ScalarType>(t)).name);
  return names;
}

Diagnostic unknownType(const Token &token) {
  std::optional<std::string> guess;
  if (std::optional<std::string_view> alias = typeAlias(token.raw))
    guess = std::string(*alias);
  else
    guess = closestMatch(token.raw, typeNames());
  Diagnostic diag = failAt(token.pos, "unknown type " + quoted(token.raw) +
                                          (guess ? "; did you mean '" + *guess + "'?"
                                                 : "; expected one of " + allScalarTypeNames()));
  for (std::string_view dtype : kDtypes)
    if (dtype == token.raw)
      diag.notes.push_back("a dtype constexpr is written tl." + std::string(dtype));
  return diag;
}

/// Parses an optional ":16" / ":1" at tokens[i].
Expected<int> parseHint(const std::vector<Token> &tokens, std::size_t &i, bool pointer,
                        const ScalarTypeInfo &info) {
  if (tokens[i].kind != Tok::Colon)
    return 0;
  const Token &hint = tokens[i + 1];
  if (hint.kind != Tok::Number)
    return failAt(hint.pos, std::string("expected a hint after ':' (") +
                                (pointer ? "16" : "16 or 1") + "), got " +
                                describe(hint, "the end of the entry"));
  i += 2;
  const std::string raw(hint.raw);
  if (!pointer && info.isFloat)
    return failAt(hint.pos, "hint :" + raw + " does not apply to a float scalar; write " +
                                std::string(info.name) + " with no hint");
  const int value = raw == "16" ? 16 : raw == "1" ? 1 : 0;
  if (pointer && value == 1)
    return failAt(hint.pos, "hint :1 (equal to 1) does not apply to a pointer; use :16 "
                            "(16-byte aligned) or no hint");
  if (pointer && value != 16)
    return failAt(hint.pos, "hint " + raw +
                                " is not supported on a pointer; use :16 (16-byte aligned) or "
                                "no hint");
  if (value == 0)
    return failAt(hint.pos, "hint " + raw +
                                " is not supported; use :16 (divisible by 16) or :1 (equal to 1)");
  return value;
}

/// An entry written by name, "NAME = value": the name and where the value starts.
std::optional<std::pair<std::string, std::size_t>> keywordOf(std::string_view text, std::size_t begin,
                                                             std::size_t end) {
  std::size_t i = begin;
  while (i < end && isSpace(text[i]))
    ++i;
  const std::size_t start = i;
  if (i == end || !isIdentStart(text[i]))
    return std::nullopt;
  while (i < end && isIdentChar(text[i]))
    ++i;
  const std::size_t nameEnd = i;
  while (i < end && isSpace(text[i]))
    ++i;
  if (i == end || text[i] != '=')
    return std::nullopt;
  return std::pair(std::string(text.substr(start, nameEnd - start)), i + 1);
}

Expected<SignatureEntry> parseUnnamedEntry(std::string_view text, std::size_t begin, std::size_t end);

/// Parses the entry in text[begin, end) (not empty), with its keyword if written by name.
Expected<SignatureEntry> parseEntry(std::string_view text, std::size_t begin, std::size_t end) {
  auto keyword = keywordOf(text, begin, end);
  if (!keyword)
    return parseUnnamedEntry(text, begin, end);
  if (trim(text.substr(keyword->second, end - keyword->second)).empty())
    return failAt(end, "no value after '" + keyword->first + "='; expected a type or a constexpr value");
  Expected<SignatureEntry> entry = parseUnnamedEntry(text, keyword->second, end);
  if (!entry)
    return entry;
  std::size_t start = begin;
  while (isSpace(text[start]))
    ++start;
  entry->column = start + 1;
  entry->text = keyword->first + "=" + entry->text;
  entry->keyword = keyword->first;
  return entry;
}

/// "tensordesc<fp16[128, 64]>" in text[begin, end), which starts with "tensordesc<".
Expected<SignatureEntry> parseTensorDesc(std::string_view text, std::size_t begin, std::size_t end) {
  const std::string_view form = "; expected tensordesc<TYPE[BLOCK, ...]>, e.g. tensordesc<fp16[128, 64]>";
  std::size_t i = begin + std::string_view("tensordesc<").size();
  auto skip = [&] { while (i < end && isSpace(text[i])) ++i; };
  skip();
  const std::size_t typeAt = i;
  while (i < end && isIdentChar(text[i]))
    ++i;
  const std::string_view typeName = text.substr(typeAt, i - typeAt);
  std::optional<ScalarType> type = parseScalarType(typeName);
  if (!type)
    return failAt(typeAt, "unknown element type '" + std::string(typeName) + "'" + std::string(form));
  SignatureEntry entry;
  entry.kind = SignatureEntry::Kind::TensorDesc;
  entry.type = *type;
  skip();
  if (i >= end || text[i] != '[')
    return failAt(i, "expected '[' after the element type" + std::string(form));
  ++i;
  while (true) {
    skip();
    const std::size_t at = i;
    while (i < end && isDigit(text[i]))
      ++i;
    if (at == i)
      return failAt(at, "expected a block dimension (a positive integer)" + std::string(form));
    std::int64_t dim = 0;
    std::from_chars(text.data() + at, text.data() + i, dim);
    if (dim <= 0 || dim > 256)
      return failAt(at, "block dimension " + std::string(text.substr(at, i - at)) +
                            " is out of range; TMA boxes are 1 to 256 elements per dimension");
    entry.blockShape.push_back(dim);
    skip();
    if (i < end && text[i] == ',') {
      ++i;
      continue;
    }
    break;
  }
  if (entry.blockShape.size() > 5)
    return failAt(begin, "a tensor descriptor has at most 5 dimensions");
  if (i >= end || text[i] != ']')
    return failAt(i, "expected ']' after the block shape" + std::string(form));
  ++i;
  skip();
  if (i >= end || text[i] != '>')
    return failAt(i, "expected '>' after the block shape" + std::string(form));
  ++i;
  skip();
  if (i != end)
    return failAt(i, "unexpected text after the tensor descriptor type" + std::string(form));
  entry.column = begin + 1;
  entry.text = std::string(trim(text.substr(begin, end - begin)));
  return entry;
}

/// Parses an entry without a keyword in text[begin, end) (not empty).
Expected<SignatureEntry> parseUnnamedEntry(std::string_view text, std::size_t begin, std::size_t end) {
  {
    std::size_t start = begin;
    while (start < end && isSpace(text[start]))
      ++start;
    if (text.substr(start, end - start).substr(0, 11) == "tensordesc<")
      return parseTensorDesc(text, start, end);
  }
  Expected<std::vector<Token>> lexed = lex(text, begin, end);
  if (!lexed)
    return lexed.takeError();
  const std::vector<Token> &tokens = *lexed;
  SignatureEntry entry;
  std::size_t i = 0;
  const Token &first = tokens[0];
  if (first.kind == Tok::Star || (first.kind == Tok::Ident && parseScalarType(first.raw))) {
    const bool pointer = first.kind == Tok::Star;
    i = pointer ? 1 : 0;
    const Token &name = tokens[i];
    if (name.kind != Tok::Ident)
      return failAt(name.pos,
                    "expected a type after '*', got " + describe(name, "the end of the entry"));
    std::optional<ScalarType> type = parseScalarType(name.raw);
    if (!type)
      return unknownType(name);
    const ScalarTypeInfo &info = typeInfo(*type);
    if (!pointer && !info.scalarAllowed)
      return failAt(name.pos, std::string(info.name) + " can only be pointed to: use *" +
                                  std::string(info.name));
    ++i;
    Expected<int> hint = parseHint(tokens, i, pointer, info);
    if (!hint)
      return hint.takeError();
    entry.kind = pointer ? SignatureEntry::Kind::Pointer : SignatureEntry::Kind::Scalar;
    entry.type = *type;
    entry.hint = *hint;
  } else if (first.kind == Tok::Ident &&
             (tokens[1].kind == Tok::Colon || looksLikeType(first.raw))) {
    return unknownType(first);
  } else {
    Expected<ConstexprValue> value = parseValue(tokens, i, text, "the end of the entry");
    if (!value)
      return value.takeError();
    entry.kind = SignatureEntry::Kind::Constexpr;
    entry.value = std::move(*value);
  }
  if (tokens[i].kind != Tok::End) {
    const std::size_t done = tokens[i - 1].pos + tokens[i - 1].raw.size();
    return failAt(tokens[i].pos, "unexpected " + quoted(tokens[i].raw) + " after " +
                                     quoted(text.substr(first.pos, done - first.pos)) +
                                     "; expected ',' before the next entry");
  }
  entry.column = first.pos + 1;
  const Token &last = tokens[tokens.size() - 2];
  entry.text = std::string(text.substr(first.pos, last.pos + last.raw.size() - first.pos));
  return entry;
}

/// Entry boundaries: commas outside quoted strings and outside tensordesc<...[...]>.
std::vector<std::pair<std::size_t, std::size_t>> splitEntries(std::string_view text) {
  std::vector<std::pair<std::size_t, std::size_t>> spans;
  std::size_t start = 0;
  char quote = 0;
  int depth = 0;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (quote) {
      if (c == '\\')
        ++i;
      else if (c == quote)
        quote = 0;
    } else if (c == '\'' || c == '"') {
      quote = c;
    } else if (c == '<' || c == '[') {
      ++depth; // inside tensordesc<fp16[128, 64]>
    } else if ((c == '>' || c == ']') && depth > 0) {
      --depth;
    } else if (c == ',' && depth == 0) {
      spans.emplace_back(start, i);
      start = i + 1;
    }
  }
  spans.emplace_back(start, text.size());
  return spans;
}

bool isBlank(std::string_view text) { return trim(text).empty(); }

/// Python's repr(float): the shortest digits that read back to the same double, in fixed
/// notation for exponents -4..15 (always with a fraction, "100.0") and scientific otherwise
/// ("1e-05", "1.5e+16"). It is what the kernel author would see for the value in Python, and it
/// always reads back as a float, never as an integer.
std::string formatFloat(double number) {
  char buffer[64];
  auto [ptr, ec] =
      std::to_chars(buffer, buffer + sizeof buffer, number, std::chars_format::scientific);
  std::string_view sci(buffer, static_cast<std::size_t>(ptr - buffer));
  const std::size_t e = sci.find('e');
  std::string_view mantissa = sci.substr(0, e);
  int exponent = 0;
  std::string_view exp = sci.substr(e + 1);
  std::from_chars(exp.data() + (exp[0] == '+' ? 1 : 0), exp.data() + exp.size(), exponent);
  std::string out;
  if (mantissa[0] == '-') {
    out += '-';
    mantissa.remove_prefix(1);
  }
  std::string digits;
  for (char c : mantissa)
    if (c != '.')
      digits += c;
  const auto count = static_cast<int>(digits.size());
  if (exponent >= -4 && exponent < 16) {
    if (exponent < 0)
      out += "0." + std::string(static_cast<std::size_t>(-exponent - 1), '0') + digits;
    else if (count <= exponent + 1)
      out += digits + std::string(static_cast<std::size_t>(exponent + 1 - count), '0') + ".0";
    else
      out += digits.substr(0, static_cast<std::size_t>(exponent + 1)) + "." +
             digits.substr(static_cast<std::size_t>(exponent + 1));
    return out;
  }
  out += digits[0];
  if (count > 1)
    out += "." + digits.substr(1);
  const int magnitude = std::abs(exponent);
  out += exponent < 0 ? "e-" : "e+";
  out += (magnitude < 10 ? "0" : "") + std::to_string(magnitude);
  return out;
}

} // namespace

bool ConstexprValue::operator==(const ConstexprValue &other) const {
  if (kind != other.kind)
    return false;
  switch (kind) {
  case Kind::Int:
  case Kind::Bool:
    return intValue == other.intValue;
  case Kind::Float:
    return floatValue == other.floatValue;
  case Kind::None:
    return true;
  default:
    return text == other.text;
  }
}

std::string formatConstexpr(const ConstexprValue &value) {
  switch (value.kind) {
  case ConstexprValue::Kind::Int:
    return std::to_string(value.intValue);
  case ConstexprValue::Kind::Float:
    return formatFloat(value.floatValue);
  case ConstexprValue::Kind::Bool:
    return value.intValue ? "True" : "False";
  case ConstexprValue::Kind::None:
    return "None";
  case ConstexprValue::Kind::Dtype:
    return "tl." + value.text;
  case ConstexprValue::Kind::Name:
    return value.text;
  case ConstexprValue::Kind::String:
    break;
  }
  std::string out = "'";
  for (char c : value.text) {
    if (c == '\'' || c == '\\')
      out += '\\';
    out += c;
  }
  return out + "'";
}

Expected<ConstexprValue> parseConstexpr(std::string_view text) {
  auto withSource = [&](Diagnostic diag) {
    diag.sourceLine = std::string(text);
    return diag;
  };
  Expected<std::vector<Token>> lexed = lex(text, 0, text.size());
  if (!lexed)
    return withSource(lexed.takeError());
  const std::vector<Token> &tokens = *lexed;
  const Token &first = tokens[0];
  if (first.kind == Tok::End)
    return withSource(failAt(0, "empty value; expected a number, True, False, None, a quoted "
                                "string, a dtype such as tl.float16 or a name"));
  if (first.kind == Tok::Star || (first.kind == Tok::Ident && parseScalarType(first.raw))) {
    const Token &last = first.kind == Tok::Star && tokens[1].kind == Tok::Ident ? tokens[1] : first;
    return withSource(
        failAt(first.pos, quoted(text.substr(first.pos, last.pos + last.raw.size() - first.pos)) +
                              " is a type, not a constexpr value; expected a "
                              "number, True, False, None, a quoted string, a "
                              "dtype such as tl.float16 or a name"));
  }
  std::size_t i = 0;
  Expected<ConstexprValue> value = parseValue(tokens, i, text, "the end of the value");
  if (!value)
    return withSource(value.takeError());
  if (tokens[i].kind != Tok::End) {
    const std::size_t done = tokens[i - 1].pos + tokens[i - 1].raw.size();
    return withSource(failAt(tokens[i].pos, "unexpected " + quoted(tokens[i].raw) + " after " +
                                                quoted(text.substr(first.pos, done - first.pos)) +
                                                "; expected the end of the value"));
  }
  return value;
}

Expected<Signature> parseSignature(std::string_view text) {
  Signature signature;
  signature.text = std::string(text);
  if (isBlank(text)) {
    Diagnostic diag =
        makeError(ExitCode::UsageError, "empty signature; expected comma-separated entries such as "
                                        "'*fp32:16, i32, 1024'");
    return diag;
  }
  const auto spans = splitEntries(text);
  for (std::size_t n = 0; n < spans.size(); ++n) {
    const auto [begin, end] = spans[n];
    const std::string position = "signature entry " + std::to_string(n + 1);
    std::string_view raw = text.substr(begin, end - begin);
    if (isBlank(raw)) {
      Diagnostic diag = failAt(end, position + " is empty; expected a type or a constexpr value");
      diag.sourceLine = signature.text;
      return diag;
    }
    Expected<SignatureEntry> entry = parseEntry(text, begin, end);
    if (!entry) {
      Diagnostic diag = entry.takeError();
      while (!raw.empty() && isSpace(raw.front()))
        raw.remove_prefix(1);
      while (!raw.empty() && isSpace(raw.back()))
        raw.remove_suffix(1);
      diag.message = position + " " + quoted(raw) + ": " + diag.message;
      diag.sourceLine = signature.text;
      return diag;
    }
    if (entry->keyword.empty() && !signature.entries.empty() && !signature.entries.back().keyword.empty()) {
      Diagnostic diag = failAt(entry->column - 1, position + " " + quoted(entry->text) +
                                                      " follows an entry written by name; entries "
                                                      "by position come first, as in Python");
      diag.sourceLine = signature.text;
      return diag;
    }
    for (const SignatureEntry &earlier : signature.entries)
      if (!entry->keyword.empty() && earlier.keyword == entry->keyword) {
        Diagnostic diag = failAt(entry->column - 1, position + " names " + entry->keyword + " again");
        diag.sourceLine = signature.text;
        return diag;
      }
    signature.entries.push_back(std::move(*entry));
  }
  return signature;
}

std::string formatEntry(const SignatureEntry &entry) {
  std::string out = entry.keyword.empty() ? "" : entry.keyword + "=";
  if (entry.kind == SignatureEntry::Kind::Constexpr)
    return out + formatConstexpr(entry.value);
  if (entry.kind == SignatureEntry::Kind::TensorDesc) {
    out += "tensordesc<" + std::string(typeInfo(entry.type).name) + "[";
    for (std::size_t d = 0; d < entry.blockShape.size(); ++d)
      out += (d ? ", " : "") + std::to_string(entry.blockShape[d]);
    return out + "]>";
  }
  out += entry.kind == SignatureEntry::Kind::Pointer ? "*" : "";
  out += typeInfo(entry.type).name;
  if (entry.hint)
    out += ":" + std::to_string(entry.hint);
  return out;
}

std::string formatSignature(const Signature &signature) {
  std::string out;
  for (const SignatureEntry &entry : signature.entries) {
    if (!out.empty())
      out += ", ";
    out += formatEntry(entry);
  }
  return out;
}

std::vector<std::pair<std::string, std::string>> typeSpellingAliases() {
  std::vector<std::pair<std::string, std::string>> out;
  for (auto [alias, type] : kTypeAliases)
    out.emplace_back(alias, type);
  return out;
}

} // namespace tta
