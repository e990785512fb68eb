#include "contract/grid.h"

#include "contract/lexing.h"
#include "contract/spelling.h"

#include <cctype>
#include <optional>
#include <utility>

namespace tta {

namespace {

enum class Tok { End, Number, Name, Op, LParen, RParen, Comma };

struct Token {
  Tok kind = Tok::End;
  std::size_t pos = 0; ///< offset in the whole text
  std::string_view text;
};


std::string quoted(std::string_view text) { return "'" + std::string(text) + "'"; }

/// The reason alone; the caller adds which dimension.
Diagnostic failAt(std::size_t pos, std::string reason) {
  Diagnostic diag = makeError(ExitCode::UsageError, std::move(reason));
  diag.column = static_cast<int>(pos + 1);
  return diag;
}

std::string describe(const Token &token) {
  return token.kind == Tok::End ? "the end of the expression" : quoted(token.text);
}

// Longest first, so "<<" is not read as two "<".
constexpr std::string_view kOperators[] = {"<<", ">>", "<=", ">=", "==", "!=", "&&", "||",
                                           "*",  "/",  "%",  "+",  "-",  "<",  ">",  "&",
                                           "^",  "|",  "!",  "~",  "?",  ":"};

Expected<std::vector<Token>> lex(std::string_view text, std::size_t begin, std::size_t end) {
  std::vector<Token> tokens;
  std::size_t i = begin;
  for (;;) {
    while (i < end && isSpace(text[i]))
      ++i;
    if (i == end) {
      tokens.push_back({Tok::End, end, {}});
      return tokens;
    }
    const std::size_t start = i;
    const std::string_view rest = text.substr(i, end - i);
    const char c = text[i];
    if (isIdentChar(c)) {
      while (i < end && (isIdentChar(text[i]) || text[i] == '.'))
        ++i;
      std::string_view word = text.substr(start, i - start);
      if (isDigit(c)) {
        const bool hex = word.size() > 2 && word[0] == '0' && (word[1] == 'x' || word[1] == 'X');
        bool valid = !hex || word.find_first_not_of("0123456789abcdefABCDEF", 2) == word.npos;
        if (!hex)
          valid = word.find_first_not_of("0123456789") == word.npos;
        if (!valid)
          return failAt(start, quoted(word) + " is not an integer; expected decimal digits or "
                                              "0x and hex digits");
        if (!hex && word.size() > 1 && word[0] == '0')
          return failAt(start, quoted(word) + " has a leading zero, which C reads as octal; "
                                              "write it without the zero");
        tokens.push_back({Tok::Number, start, word});
      } else {
        if (word.find('.') != word.npos) // "triton.cdiv": Python, not C
          return failAt(start, quoted(word) + " is not a name; expected a parameter name or "
                                              "cdiv, min or max");
        tokens.push_back({Tok::Name, start, word});
      }
      continue;
    }
    if (c == '(' || c == ')' || c == ',') {
      tokens.push_back({c == '('   ? Tok::LParen
                        : c == ')' ? Tok::RParen
                                   : Tok::Comma,
                        i, rest.substr(0, 1)});
      ++i;
      continue;
    }
    // Python spellings would mean something else in C ("//" starts a comment), so say so.
    if (rest.substr(0, 2) == "//")
      return failAt(start, "'//' is not C; use cdiv(a, b) to round up or '/' to round down");
    if (rest.substr(0, 2) == "**")
      return failAt(start, "'**' is not supported; grid expressions have no power operator");
    std::optional<std::string_view> op;
    for (std::string_view candidate : kOperators)
      if (rest.substr(0, candidate.size()) == candidate) {
        op = candidate;
        break;
      }
    if (!op)
      return failAt(start, "unexpected character " + quoted(rest.substr(0, 1)) +
                               "; expected a number, a name, an operator or a parenthesis");
    tokens.push_back({Tok::Op, start, *op});
    i += op->size();
  }
}

// Binary operators by C precedence, loosest first.
const std::vector<std::vector<std::string_view>> kLevels = {
    {"||"},       {"&&"},     {"|"},          {"^"}, {"&"}, {"==", "!="}, {"<", "<=", ">", ">="},
    {"<<", ">>"}, {"+", "-"}, {"*", "/", "%"}};

/// Recursive descent over one dimension. Each parse function returns the canonical text of what
/// it read: binary operators and "?:" get one space on each side, unary operators and
/// parentheses none, call arguments ", ".
class Parser {
public:
  Parser(std::vector<Token> tokens, std::set<std::string> &names)
      : tokens_(std::move(tokens)), names_(names) {}

  Expected<std::string> parseAll() {
    Expected<std::string> expr = parseTernary();
    if (!expr)
      return expr;
    const Token &next = peek();
    if (next.kind == Tok::Comma)
      return failAt(next.pos, "unexpected ','; each grid dimension is one expression");
    if (next.kind != Tok::End)
      return failAt(next.pos, "unexpected " + describe(next) + " after " + quoted(*expr) +
                                  "; expected an operator or the end of the expression");
    return expr;
  }

private:
  const Token &peek() const { return tokens_[index_]; }
  bool isOp(std::string_view op) const { return peek().kind == Tok::Op && peek().text == op; }

  /// Parentheses, calls, conditionals and unary operators nest at most this deep: each level
  /// of parentheses is a dozen frames of this parser.
  static constexpr int kMaxNesting = 64;
  struct Nesting {
    int &depth;
    explicit Nesting(int &d) : depth(++d) {}
    ~Nesting() { --depth; }
  };
  std::optional<Diagnostic> tooDeep() const {
    if (depth_ <= kMaxNesting)
      return std::nullopt;
    return failAt(peek().pos, "the expression nests deeper than " + std::to_string(kMaxNesting) +
                                  " levels");
  }

  Expected<std::string> parseTernary() {
    Nesting nesting(depth_);
    if (auto deep = tooDeep())
      return *deep;
    Expected<std::string> condition = parseBinary(0);
    if (!condition || !isOp("?"))
      return condition;
    const std::size_t question = peek().pos;
    ++index_;
    Expected<std::string> yes = parseTernary();
    if (!yes)
      return yes;
    if (!isOp(":"))
      return failAt(peek().pos, "expected ':' for the '?' at column " +
                                    std::to_string(question + 1) + ", got " + describe(peek()));
    ++index_;
    Expected<std::string> no = parseTernary();
    if (!no)
      return no;
    return *condition + " ? " + *yes + " : " + *no;
  }

  Expected<std::string> parseBinary(std::size_t level) {
    if (level == kLevels.size())
      return parseUnary();
    Expected<std::string> lhs = parseBinary(level + 1);
    if (!lhs)
      return lhs;
    std::string out = std::move(*lhs);
    for (;;) {
      std::optional<std::string_view> op;
      for (std::string_view candidate : kLevels[level])
        if (isOp(candidate))
          op = candidate;
      if (!op)
        return out;
      ++index_;
      Expected<std::string> rhs = parseBinary(level + 1);
      if (!rhs)
        return rhs;
      out += " " + std::string(*op) + " " + *rhs;
    }
  }

  Expected<std::string> parseUnary() {
    for (std::string_view op : {"-", "+", "!", "~"})
      if (isOp(op)) {
        ++index_;
        Nesting nesting(depth_);
        if (auto deep = tooDeep())
          return *deep;
        Expected<std::string> operand = parseUnary();
        if (!operand)
          return operand;
        // "- -n" must not become "--n", which C reads as a decrement.
        const bool clash = (op == "-" || op == "+") && operand->front() == op[0];
        return std::string(op) + (clash ? " " : "") + *operand;
      }
    return parsePrimary();
  }

  Expected<std::string> parsePrimary() {
    const Token token = peek();
    if (token.kind == Tok::Number) {
      ++index_;
      return std::string(token.text);
    }
    if (token.kind == Tok::LParen) {
      ++index_;
      Expected<std::string> inner = parseTernary();
      if (!inner)
        return inner;
      if (peek().kind != Tok::RParen)
        return failAt(peek().pos, "expected ')' to close the '(' at column " +
                                      std::to_string(token.pos + 1) + ", got " + describe(peek()));
      ++index_;
      return "(" + *inner + ")";
    }
    if (token.kind == Tok::Name) {
      ++index_;
      if (peek().kind == Tok::LParen)
        return parseCall(token);
      names_.insert(std::string(token.text));
      return std::string(token.text);
    }
    return failAt(token.pos, "expected a number, a name or '(', got " + describe(token));
  }

  Expected<std::string> parseCall(const Token &function) {
    const std::string name(function.text);
    if (name != "cdiv" && name != "min" && name != "max") {
      std::string message = "unknown function " + quoted(name);
      if (std::optional<std::string> guess = closestMatch(name, {"cdiv", "min", "max"}))
        message += "; did you mean '" + *guess + "'?";
      else
        message += "; expected cdiv, min or max";
      return failAt(function.pos, std::move(message));
    }
    ++index_; // '('
    std::vector<std::string> args;
    if (peek().kind != Tok::RParen)
      for (;;) {
        Expected<std::string> arg = parseTernary();
        if (!arg)
          return arg;
        args.push_back(std::move(*arg));
        if (peek().kind == Tok::Comma) {
          ++index_;
          continue;
        }
        if (peek().kind != Tok::RParen)
          return failAt(peek().pos,
                        "expected ',' or ')' in the call of " + name + ", got " + describe(peek()));
        break;
      }
    ++index_; // ')'
    if (args.size() != 2)
      return failAt(function.pos, name + " takes 2 arguments (" + name + "(a, b)), got " +
                                      std::to_string(args.size()));
    return name + "(" + args[0] + ", " + args[1] + ")";
  }

  std::vector<Token> tokens_;
  std::size_t index_ = 0;
  int depth_ = 0;   // nesting levels open
  std::set<std::string> &names_;
};

constexpr const char *kEmptyGrid =
    "empty grid; expected 1 to 3 comma-separated expressions such as 'cdiv(n, BLOCK), 1, 1'";

/// Parses text[begin, end) as grid dimension \p dim (0-based) into \p grid.
Status parseDim(std::string_view text, std::size_t begin, std::size_t end, std::size_t dim,
                Grid &grid) {
  const std::string position = "grid dimension " + std::to_string(dim + 1);
  std::string_view raw = trim(text.substr(begin, end - begin));
  Diagnostic diag;
  if (raw.empty()) {
    diag = failAt(end, position + " is empty; expected an expression");
  } else if (raw.size() > kMaxExpressionLength) {
    diag = failAt(begin, position + " is longer than " + std::to_string(kMaxExpressionLength) +
                             " characters");
  } else {
    Expected<std::vector<Token>> tokens = lex(text, begin, end);
    if (tokens) {
      Expected<std::string> expr = Parser(std::move(*tokens), grid.names[dim]).parseAll();
      if (expr) {
        grid.dims[dim] = std::move(*expr);
        return ok();
      }
      diag = expr.takeError();
    } else {
      diag = tokens.takeError();
    }
    diag.message = position + " " + quoted(raw) + ": " + diag.message;
  }
  diag.sourceLine = std::string(text);
  return diag;
}

Diagnostic tooManyDims(std::size_t count) {
  return makeError(ExitCode::UsageError, "grid has " + std::to_string(count) +
                                             " dimensions; expected at most 3 (x, y, z)");
}

void padGrid(Grid &grid, std::size_t count) {
  for (std::size_t d = count; d < 3; ++d)
    grid.dims[d] = "1";
}

/// Where \p name occurs as a whole word in \p text.
std::size_t findName(std::string_view text, std::string_view name) {
  for (std::size_t at = text.find(name); at != text.npos; at = text.find(name, at + 1)) {
    const bool startOk = at == 0 || !isIdentChar(text[at - 1]);
    const bool endOk = at + name.size() == text.size() || !isIdentChar(text[at + name.size()]);
    if (startOk && endOk)
      return at;
  }
  return text.npos;
}

} // namespace

Expected<Grid> parseGrid(std::string_view text) {
  if (trim(text).empty())
    return makeError(ExitCode::UsageError, kEmptyGrid);
  // Dimensions end at commas outside parentheses; a stray ')' is left for the parser to report.
  std::vector<std::pair<std::size_t, std::size_t>> spans;
  std::size_t start = 0;
  int depth = 0;
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '(')
      ++depth;
    else if (text[i] == ')' && depth > 0)
      --depth;
    else if (text[i] == ',' && depth == 0) {
      spans.emplace_back(start, i);
      start = i + 1;
    }
  }
  spans.emplace_back(start, text.size());
  if (spans.size() > 3) {
    Diagnostic diag = tooManyDims(spans.size());
    diag.column = static_cast<int>(spans[3].first); // the comma that starts the fourth
    diag.sourceLine = std::string(text);
    return diag;
  }
  Grid grid;
  for (std::size_t d = 0; d < spans.size(); ++d)
    if (Status status = parseDim(text, spans[d].first, spans[d].second, d, grid); !status)
      return status.takeError();
  padGrid(grid, spans.size());
  return grid;
}

Expected<Grid> parseGrid(const std::vector<std::string> &dims) {
  if (dims.empty())
    return makeError(ExitCode::UsageError, kEmptyGrid);
  if (dims.size() > 3)
    return tooManyDims(dims.size());
  Grid grid;
  for (std::size_t d = 0; d < dims.size(); ++d)
    if (Status status = parseDim(dims[d], 0, dims[d].size(), d, grid); !status)
      return status.takeError();
  padGrid(grid, dims.size());
  return grid;
}

Status checkGridNames(const Grid &grid, const std::vector<std::string> &known) {
  for (std::size_t d = 0; d < 3; ++d) {
    // Report the leftmost unknown name, as a reader would meet it.
    std::size_t firstAt = std::string::npos;
    std::string first;
    for (const std::string &name : grid.names[d]) {
      bool isKnown = false;
      for (const std::string &candidate : known)
        isKnown = isKnown || candidate == name;
      std::size_t at = findName(grid.dims[d], name);
      if (!isKnown && (first.empty() || at < firstAt)) {
        first = name;
        firstAt = at;
      }
    }
    if (first.empty())
      continue;
    std::string message =
        "grid dimension " + std::to_string(d + 1) + " uses unknown name " + quoted(first);
    if (std::optional<std::string> guess = closestMatch(first, known))
      message += "; did you mean '" + *guess + "'?";
    if (known.empty())
      message += "; the kernel has no parameters or constexprs to name";
    else
      message +=
          (message.back() == '?' ? " known names: " : "; expected one of ") + joinNames(known);
    Diagnostic diag = makeError(ExitCode::UsageError, std::move(message));
    diag.sourceLine = grid.dims[d];
    if (firstAt != std::string::npos)
      diag.column = static_cast<int>(firstAt + 1);
    return diag;
  }
  return ok();
}

} // namespace tta
