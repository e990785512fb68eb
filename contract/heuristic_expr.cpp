#include "contract/heuristic_expr.h"

#include "contract/lexing.h"
#include "contract/python_arith.h"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <sstream>

namespace tta {

namespace {

using Node = HeuristicNode;
using Value = HeuristicValue;

struct Token {
  enum class Kind { End, Name, Int, Float, String, Op };
  Kind kind = Kind::End;
  std::string text;
  std::size_t column = 0;   ///< 1-based
};

Diagnostic parseError(std::size_t column, const std::string &message) {
  return makeError(ExitCode::UsageError, "column " + std::to_string(column) + ": " + message);
}

Expected<std::vector<Token>> tokenize(std::string_view text) {
  static const char *const ops[] = {"//", "**", "==", "!=", "<=", ">=", "&&", "||", "<<", ">>",
                                    "(",  ")",  "[",  "]",  ",",  "+",  "-",  "*",  "/",  "%",
                                    "<",  ">",  "!",  "?",  ":",  ".",  "&",  "|",  "^",  "~"};
  std::vector<Token> out;
  std::size_t i = 0;
  while (i < text.size()) {
    char c = text[i];
    if (isSpace(c) || c == '\\') {
      ++i;
      continue;
    }
    Token t;
    t.column = i + 1;
    if (isIdentStart(c)) {
      std::size_t end = i;
      while (end < text.size() && isIdentChar(text[end]))
        ++end;
      t.kind = Token::Kind::Name;
      t.text = std::string(text.substr(i, end - i));
      i = end;
    } else if (isDigit(c) || (c == '.' && i + 1 < text.size() && isDigit(text[i + 1]))) {
      std::size_t end = i;
      bool isFloat = false;
      if (c == '0' && i + 1 < text.size() && (text[i + 1] == 'x' || text[i + 1] == 'X')) {
        end += 2;
        while (end < text.size() && (isIdentChar(text[end])))
          ++end;
      } else {
        while (end < text.size() &&
               (isDigit(text[end]) || text[end] == '.' || text[end] == '_' || text[end] == 'e' ||
                text[end] == 'E' ||
                ((text[end] == '+' || text[end] == '-') && (text[end - 1] == 'e' || text[end - 1] == 'E')))) {
          isFloat = isFloat || text[end] == '.' || text[end] == 'e' || text[end] == 'E';
          ++end;
        }
      }
      t.kind = isFloat ? Token::Kind::Float : Token::Kind::Int;
      for (char d : text.substr(i, end - i))
        if (d != '_')
          t.text += d;
      i = end;
    } else if (c == '"' || c == '\'') {
      std::size_t end = text.find(c, i + 1);
      if (end == std::string_view::npos)
        return parseError(t.column, "unterminated string");
      t.kind = Token::Kind::String;
      t.text = std::string(text.substr(i + 1, end - i - 1));
      i = end + 1;
    } else {
      bool matched = false;
      for (const char *op : ops) {
        std::string_view o(op);
        if (text.substr(i, o.size()) == o) {
          t.kind = Token::Kind::Op;
          t.text = std::string(o);
          i += o.size();
          matched = true;
          break;
        }
      }
      if (!matched)
        return parseError(t.column, std::string("unexpected character '") + c + "'");
    }
    out.push_back(std::move(t));
  }
  Token end;
  end.column = text.size() + 1;
  out.push_back(end);
  return out;
}

Node literal(Value v) {
  Node n;
  n.kind = Node::Kind::Literal;
  n.value = v;
  return n;
}
Value makeInt(std::int64_t i) { return {Value::Kind::Int, i, 0}; }
Value makeBool(bool b) { return {Value::Kind::Bool, b ? 1 : 0, 0}; }
Value makeFloat(double f) { return {Value::Kind::Float, 0, f}; }
Value makeNone() { return {Value::Kind::None, 0, 0}; }

Node make(Node::Kind kind, std::string op, std::vector<Node> children) {
  Node n;
  n.kind = kind;
  n.op = std::move(op);
  n.children = std::move(children);
  return n;
}

/// The functions both dialects call, by every spelling accepted, and their canonical name.
std::optional<std::string> canonicalFunction(const std::string &dotted) {
  if (dotted == "min" || dotted == "max" || dotted == "abs")
    return dotted;
  if (dotted == "cdiv" || dotted == "triton.cdiv" || dotted == "tl.cdiv")
    return "cdiv";
  if (dotted == "next_power_of_2" || dotted == "triton.next_power_of_2")
    return "next_power_of_2";
  if (dotted == "bool" || dotted == "int" || dotted == "float")
    return dotted;
  if (dotted == "fdiv")   // Python's true division a / b, spelled as a call in C
    return dotted;
  return std::nullopt;
}

/// The functions' names as the messages list them.
constexpr const char *kFunctionList =
    "min, max, abs, bool, int, float, triton.cdiv, triton.next_power_of_2";

class Parser {
public:
  Parser(std::vector<Token> tokens, HeuristicDialect dialect, std::string_view argName)
      : t_(std::move(tokens)), python_(dialect == HeuristicDialect::Python), arg_(argName) {}

  Expected<HeuristicExpr> parse() {
    auto root = expression();
    if (!root)
      return root.takeError();
    if (peek().kind != Token::Kind::End)
      return unexpected("the end of the expression");
    return HeuristicExpr{std::move(*root), std::move(names_)};
  }

private:
  const Token &peek() const { return t_[pos_]; }
  bool isOp(const char *op) const { return peek().kind == Token::Kind::Op && peek().text == op; }
  bool isWord(const char *word) const {
    return peek().kind == Token::Kind::Name && peek().text == word;
  }
  Diagnostic unexpected(const std::string &expected) const {
    const Token &t = peek();
    return parseError(t.column, "expected " + expected + ", found " +
                                    (t.kind == Token::Kind::End ? "the end" : "'" + t.text + "'"));
  }
  Diagnostic unsupported(const std::string &what) const {
    return parseError(peek().column, what + " is not supported in a heuristic");
  }

  /// Parentheses, calls, conditionals and unary operators nest at most this deep: each level
  /// is several frames of this parser (and of eval, format and emit over the tree).
  /// 160: a heuristic function's loop, unrolled by the frontend (FlagGems' tile search: 14
  /// iterations), nests two conditionals and a parenthesis per iteration.
  static constexpr int kMaxNesting = 160;
  struct Nesting {
    int &depth;
    explicit Nesting(int &d) : depth(++d) {}
    ~Nesting() { --depth; }
  };
  bool tooDeep() const { return depth_ > kMaxNesting; }
  Diagnostic tooDeepError() const {
    return parseError(peek().column, "the expression nests deeper than " +
                                         std::to_string(kMaxNesting) + " levels");
  }

  Expected<Node> expression() {
    Nesting nesting(depth_);
    if (tooDeep())
      return tooDeepError();
    auto value = disjunction();
    if (!value)
      return value;
    if (python_ && isWord("if")) {
      ++pos_;
      auto condition = disjunction();
      if (!condition)
        return condition;
      if (!isWord("else"))
        return unexpected("'else'");
      ++pos_;
      auto otherwise = expression();
      if (!otherwise)
        return otherwise;
      return make(Node::Kind::Conditional, "",
                  {std::move(*condition), std::move(*value), std::move(*otherwise)});
    }
    if (!python_ && isOp("?")) {
      ++pos_;
      auto then = expression();
      if (!then)
        return then;
      if (!isOp(":"))
        return unexpected("':'");
      ++pos_;
      auto otherwise = expression();
      if (!otherwise)
        return otherwise;
      return make(Node::Kind::Conditional, "",
                  {std::move(*value), std::move(*then), std::move(*otherwise)});
    }
    return value;
  }

  template <class Next>
  Expected<Node> chain(Node::Kind kind, const char *word, const char *op, Next next) {
    auto left = (this->*next)();
    if (!left)
      return left;
    while (python_ ? isWord(word) : isOp(op)) {
      ++pos_;
      auto right = (this->*next)();
      if (!right)
        return right;
      left = make(kind, "", {std::move(*left), std::move(*right)});
    }
    if (python_ ? isOp(op) : isWord(word))
      return unsupported(std::string("'") + peek().text + "' (write '" + (python_ ? word : op) +
                         "' in this spelling)");
    return left;
  }
  Expected<Node> disjunction() { return chain(Node::Kind::Or, "or", "||", &Parser::conjunction); }
  Expected<Node> conjunction() { return chain(Node::Kind::And, "and", "&&", &Parser::negation); }

  Expected<Node> negation() {
    if (python_ ? isWord("not") : isOp("!")) {
      ++pos_;
      Nesting nesting(depth_);
      if (tooDeep())
        return tooDeepError();
      auto operand = negation();
      if (!operand)
        return operand;
      return make(Node::Kind::Not, "", {std::move(*operand)});
    }
    return comparison();
  }

  std::optional<std::string> compareOp() {
    static const char *const ops[] = {"==", "!=", "<=", ">=", "<", ">"};
    for (const char *op : ops)
      if (isOp(op)) {
        ++pos_;
        return std::string(op);
      }
    if (python_ && isWord("is")) {
      ++pos_;
      if (isWord("not")) {
        ++pos_;
        return std::string("!=");
      }
      return std::string("==");
    }
    return std::nullopt;
  }

  Expected<Node> comparison() {
    auto left = arithmetic();
    if (!left)
      return left;
    std::vector<Node> pairs;
    Node previous = *left;
    while (true) {
      if (python_ && (isWord("in") || (isWord("not") && t_[pos_ + 1].text == "in")))
        return unsupported("'in'");
      std::size_t column = peek().column;
      bool identity = python_ && isWord("is");
      auto op = compareOp();
      if (!op)
        break;
      auto right = arithmetic();
      if (!right)
        return right;
      if (identity && !(right->kind == Node::Kind::Literal &&
                        right->value.kind == Value::Kind::None))
        return parseError(column, "'is' is supported only against None");
      pairs.push_back(make(Node::Kind::Compare, *op, {previous, *right}));
      previous = std::move(*right);
    }
    if (pairs.empty())
      return left;
    Node out = std::move(pairs[0]);
    for (std::size_t i = 1; i < pairs.size(); ++i)
      out = make(Node::Kind::And, "", {std::move(out), std::move(pairs[i])});
    return out;
  }

  Expected<Node> arithmetic() {
    auto left = term();
    if (!left)
      return left;
    while (isOp("+") || isOp("-")) {
      std::string op = peek().text;
      ++pos_;
      auto right = term();
      if (!right)
        return right;
      left = make(Node::Kind::Binary, op, {std::move(*left), std::move(*right)});
    }
    for (const char *bitwise : {"&", "|", "^", "<<", ">>"})
      if (isOp(bitwise))
        return unsupported(std::string("the bitwise operator '") + bitwise + "'");
    return left;
  }

  Expected<Node> term() {
    auto left = unary();
    if (!left)
      return left;
    while (isOp("*") || isOp("//") || isOp("/") || isOp("%")) {
      std::string op = peek().text;
      if (!python_ && op == "//")
        return unsupported("'//' (write '/': integer division in this spelling)");
      ++pos_;
      auto right = unary();
      if (!right)
        return right;
      if (python_ && op == "/")   // true division: a float, fdiv(a, b) in the C spelling
        left = make(Node::Kind::Call, "fdiv", {std::move(*left), std::move(*right)});
      else
        left = make(Node::Kind::Binary, op == "/" ? "//" : op, {std::move(*left), std::move(*right)});
    }
    return left;
  }

  Expected<Node> unary() {
    if (isOp("-") || isOp("+")) {
      bool negate = isOp("-");
      ++pos_;
      Nesting nesting(depth_);
      if (tooDeep())
        return tooDeepError();
      auto operand = unary();
      if (!operand)
        return operand;
      return negate ? make(Node::Kind::Negate, "", {std::move(*operand)}) : std::move(*operand);
    }
    if (isOp("~"))
      return unsupported("the bitwise operator '~'");
    return power();
  }

  /// primary ['**' unary]: Python's power binds tighter than a unary minus on its left
  /// (-2 ** 2 is -4) and takes one on its right (2 ** -1), and groups to the right.
  Expected<Node> power() {
    auto base = primary();
    if (!base || !isOp("**"))
      return base;
    ++pos_;
    Nesting nesting(depth_);
    if (tooDeep())
      return tooDeepError();
    auto exponent = unary();
    if (!exponent)
      return exponent;
    return make(Node::Kind::Binary, "**", {std::move(*base), std::move(*exponent)});
  }

  Expected<Node> primary() {
    const Token tok = peek();
    if (tok.kind == Token::Kind::Int) {
      ++pos_;
      errno = 0;
      char *end = nullptr;
      long long v = std::strtoll(tok.text.c_str(), &end, 0);
      if (errno != 0 || *end != '\0' || (tok.text.size() > 1 && tok.text[0] == '0' &&
                                         std::isalpha(static_cast<unsigned char>(tok.text[1])) == 0))
        return parseError(tok.column, "'" + tok.text + "' is not a 64-bit integer");
      return literal(makeInt(v));
    }
    if (tok.kind == Token::Kind::Float) {
      ++pos_;
      char *end = nullptr;
      double v = std::strtod(tok.text.c_str(), &end);
      if (*end != '\0')
        return parseError(tok.column, "'" + tok.text + "' is not a number");
      return literal(makeFloat(v));
    }
    if (tok.kind == Token::Kind::String)
      return unsupported("a string outside " + std::string(arg_) + "[...]");
    if (isOp("(")) {
      ++pos_;
      auto inner = expression();
      if (!inner)
        return inner;
      if (isOp(","))
        return unsupported("a tuple");
      if (!isOp(")"))
        return unexpected("')'");
      ++pos_;
      return inner;
    }
    if (tok.kind != Token::Kind::Name)
      return unexpected("a value");
    ++pos_;
    if (python_ ? (tok.text == "True" || tok.text == "False")
                : (tok.text == "true" || tok.text == "false"))
      return literal(makeBool(tok.text[0] == 'T' || tok.text[0] == 't'));
    if (tok.text == (python_ ? "None" : "NULL"))
      return literal(makeNone());
    if (python_ && tok.text == "lambda")
      return parseError(tok.column, "a nested lambda is not supported in a heuristic");
    std::string dotted = tok.text;
    while (isOp(".")) {
      ++pos_;
      if (peek().kind != Token::Kind::Name)
        return unexpected("a name after '.'");
      dotted += "." + peek().text;
      ++pos_;
    }
    if (python_ && dotted == arg_) {
      if (isOp("["))
        return subscript();
      return parseError(tok.column, "'" + dotted + "' is used other than as " + dotted +
                                        "[\"NAME\"]");
    }
    if (python_ && dotted.rfind(std::string(arg_) + ".", 0) == 0)
      return parseError(tok.column, "'" + dotted + "(...)' is not supported; read arguments as " +
                                        std::string(arg_) + "[\"NAME\"]");
    if (isOp("("))
      return call(dotted, tok.column);
    if (python_ || dotted.find('.') != std::string::npos)
      return parseError(tok.column, "the name '" + dotted + "' is not supported in a heuristic " +
                                        "(only " + std::string(arg_) + "[\"NAME\"], literals and " +
                                        kFunctionList + ")");
    names_.insert(dotted);
    Node n;
    n.kind = Node::Kind::Name;
    n.name = dotted;
    return n;
  }

  Expected<Node> subscript() {
    ++pos_;   // '['
    if (peek().kind != Token::Kind::String)
      return unexpected("a parameter name in quotes");
    std::string name = peek().text;
    if (name.empty() || !isIdentStart(name[0]) ||
        !std::all_of(name.begin(), name.end(), isIdentChar))
      return parseError(peek().column, "'" + name + "' is not a parameter name");
    ++pos_;
    if (!isOp("]"))
      return unexpected("']'");
    ++pos_;
    if (isOp("."))
      return unsupported("attribute access on an argument ('" + name + "." +
                         t_[pos_ + 1].text + "')");
    if (isOp("["))
      return unsupported("indexing an argument");
    names_.insert(name);
    Node n;
    n.kind = Node::Kind::Name;
    n.name = name;
    return n;
  }

  Expected<Node> call(const std::string &dotted, std::size_t column) {
    auto function = canonicalFunction(dotted);
    if (!function)
      return parseError(column, "the function '" + dotted + "' is not supported in a heuristic " +
                                    "(only " + kFunctionList + ")");
    ++pos_;   // '('
    std::vector<Node> args;
    while (!isOp(")")) {
      auto arg = expression();
      if (!arg)
        return arg;
      args.push_back(std::move(*arg));
      if (isOp(","))
        ++pos_;
      else if (!isOp(")"))
        return unexpected("',' or ')'");
    }
    ++pos_;
    std::size_t wanted = *function == "min" || *function == "max" ? 0
                         : *function == "cdiv" || *function == "fdiv" ? 2
                                                                  : 1;
    if (wanted == 0 ? args.size() < 2 : args.size() != wanted)
      return parseError(column, "'" + dotted + "' takes " +
                                    (wanted == 0 ? std::string("two or more arguments")
                                                 : std::to_string(wanted) + " argument(s)") +
                                    ", got " + std::to_string(args.size()));
    return make(Node::Kind::Call, *function, std::move(args));
  }

  std::vector<Token> t_;
  std::size_t pos_ = 0;
  int depth_ = 0;   // nesting levels open
  bool python_;
  std::string_view arg_;
  std::set<std::string> names_;
};

// ---------------------------------------------------------------------------------------------

int precedence(const Node &n) {
  switch (n.kind) {
  case Node::Kind::Conditional: return 1;
  case Node::Kind::Or: return 2;
  case Node::Kind::And: return 3;
  case Node::Kind::Not: return 4;
  case Node::Kind::Compare: return 5;
  case Node::Kind::Binary: return n.op == "**" ? 9 : n.op == "+" || n.op == "-" ? 6 : 7;
  case Node::Kind::Negate: return 8;
  default: return 10;
  }
}

std::string format(const Node &n);
std::string formatAt(const Node &n, int minimum) {
  std::string text = format(n);
  return precedence(n) < minimum ? "(" + text + ")" : text;
}

std::string format(const Node &n) {
  switch (n.kind) {
  case Node::Kind::Literal:
    if (n.value.kind == Value::Kind::Bool)
      return n.value.intValue ? "true" : "false";
    if (n.value.kind == Value::Kind::None)
      return "NULL";
    return formatHeuristicValue(n.value);
  case Node::Kind::Name: return n.name;
  case Node::Kind::Negate: return "-" + formatAt(n.children[0], 9);
  case Node::Kind::Not: return "!" + formatAt(n.children[0], 9);
  case Node::Kind::Binary: {
    if (n.op == "**")   // groups to the right; its exponent may be a negation
      return formatAt(n.children[0], 10) + " ** " + formatAt(n.children[1], 8);
    int p = precedence(n);
    return formatAt(n.children[0], p) + " " + (n.op == "//" ? "/" : n.op) + " " +
           formatAt(n.children[1], p + 1);
  }
  case Node::Kind::Compare:
    return formatAt(n.children[0], 6) + " " + n.op + " " + formatAt(n.children[1], 6);
  case Node::Kind::And:
  case Node::Kind::Or: {
    int p = precedence(n);
    return formatAt(n.children[0], p) + (n.kind == Node::Kind::And ? " && " : " || ") +
           formatAt(n.children[1], p + 1);
  }
  case Node::Kind::Conditional:
    return formatAt(n.children[0], 2) + " ? " + formatAt(n.children[1], 2) + " : " +
           formatAt(n.children[2], 1);
  case Node::Kind::Call: {
    std::string out = n.op + "(";
    for (std::size_t i = 0; i < n.children.size(); ++i)
      out += (i ? ", " : "") + format(n.children[i]);
    return out + ")";
  }
  }
  return {};
}

bool boolValued(const Node &n) {
  switch (n.kind) {
  case Node::Kind::Literal: return n.value.kind == Value::Kind::Bool;
  case Node::Kind::Compare:
  case Node::Kind::Not:
  case Node::Kind::And:
  case Node::Kind::Or: return true;
  case Node::Kind::Conditional: return boolValued(n.children[1]) && boolValued(n.children[2]);
  case Node::Kind::Call: return n.op == "bool";
  default: return false;
  }
}

/// A test against None: `x is None`, `x is not None` (== / != with a None literal).
bool isNoneTest(const Node &n) {
  if (n.kind != Node::Kind::Compare || (n.op != "==" && n.op != "!="))
    return false;
  for (const Node &side : n.children)
    if (side.kind == Node::Kind::Literal && side.value.kind == Value::Kind::None)
      return true;
  return false;
}

void collectValueNames(const Node &n, std::set<std::string> &out) {
  if (n.kind == Node::Kind::Name) {
    out.insert(n.name);
    return;
  }
  if (isNoneTest(n))
    for (const Node &side : n.children)
      if (side.kind == Node::Kind::Name)
        return;   // the name's None-ness is all it reads
  for (const Node &child : n.children)
    collectValueNames(child, out);
}

// ---------------------------------------------------------------------------------------------
// Evaluation (Python semantics).

bool truthy(const Value &v) {
  switch (v.kind) {
  case Value::Kind::Float: return v.floatValue != 0;
  case Value::Kind::None: return false;
  default: return v.intValue != 0;
  }
}
bool numeric(const Value &v) { return v.kind != Value::Kind::None; }
double asDouble(const Value &v) {
  return v.kind == Value::Kind::Float ? v.floatValue : static_cast<double>(v.intValue);
}
std::int64_t nextPow2(std::int64_t n) {
  std::uint64_t v = static_cast<std::uint64_t>(n) - 1;
  for (int s = 1; s < 64; s *= 2)
    v |= v >> s;
  return static_cast<std::int64_t>(v + 1);
}

Diagnostic evalError(const std::string &message) {
  return makeError(ExitCode::UsageError, message);
}
/// An integer result beyond 64 bits (Python's would be exact).
Diagnostic overflowError(const std::string &op) {
  return evalError("integer overflow in '" + op + "' (the values are 64-bit)");
}

Expected<Value> eval(const Node &n, const std::map<std::string, Value> &values);

/// Python's a ** b: an int for an int base and a non-negative int exponent (exact, or an
/// overflow error), otherwise a float; the errors Python raises are errors here too.
Expected<Value> power(const Value &a, const Value &b) {
  const bool isFloat = a.kind == Value::Kind::Float || b.kind == Value::Kind::Float;
  if (!isFloat && b.intValue >= 0) {
    std::int64_t result = 1, base = a.intValue;
    for (std::int64_t e = b.intValue; e > 0; e >>= 1) {
      if ((e & 1) && __builtin_mul_overflow(result, base, &result))
        return overflowError("**");
      if (e > 1 && __builtin_mul_overflow(base, base, &base))
        return overflowError("**");
    }
    return makeInt(result);
  }
  const double x = asDouble(a), y = asDouble(b);
  if (x == 0 && y < 0)
    return evalError("division by zero (0 to a negative power)");
  if (x < 0 && std::isfinite(y) && std::trunc(y) != y)
    return evalError("a negative number to a fractional power (Python's is a complex number)");
  const double r = std::pow(x, y);
  if (!std::isfinite(r) && std::isfinite(x) && std::isfinite(y))
    return evalError("float overflow in '**'");
  return makeFloat(r);
}

/// Python's bool(), int() and float() of \p v.
Expected<Value> convert(const std::string &fn, const Value &v) {
  if (fn == "bool")
    return makeBool(truthy(v));
  if (!numeric(v))
    return evalError(fn + "() of None");
  if (fn == "float")
    return makeFloat(asDouble(v));
  if (v.kind != Value::Kind::Float)
    return makeInt(v.intValue);
  // int() truncates toward zero; inf and nan have no integer, and 64 bits hold [-2^63, 2^63).
  if (!std::isfinite(v.floatValue))
    return evalError("int() of " + formatHeuristicValue(v));
  if (!(v.floatValue >= -9223372036854775808.0 && v.floatValue < 9223372036854775808.0))
    return overflowError("int");
  return makeInt(static_cast<std::int64_t>(v.floatValue));
}

Expected<Value> arith(const std::string &op, const Value &a, const Value &b) {
  if (!numeric(a) || !numeric(b))
    return evalError("'" + op + "' on None");
  if (op == "**")
    return power(a, b);
  bool isFloat = a.kind == Value::Kind::Float || b.kind == Value::Kind::Float;
  if (isFloat) {
    double x = asDouble(a), y = asDouble(b);
    if ((op == "//" || op == "%") && y == 0)
      return evalError("division by zero");
    if (op == "+") return makeFloat(x + y);
    if (op == "-") return makeFloat(x - y);
    if (op == "*") return makeFloat(x * y);
    if (op == "//") return makeFloat(std::floor(x / y));
    return makeFloat(x - y * std::floor(x / y));
  }
  std::int64_t x = a.intValue, y = b.intValue;
  if ((op == "//" || op == "%") && y == 0)
    return evalError("division by zero");
  std::optional<std::int64_t> r = op == "//"  ? checkedFloorDiv(x, y)
                                  : op == "%" ? floorMod(x, y)
                                              : checkedAddSubMul(op[0], x, y);
  if (!r)
    return overflowError(op);
  return makeInt(*r);
}

Expected<Value> compare(const std::string &op, const Value &a, const Value &b) {
  if (a.kind == Value::Kind::None || b.kind == Value::Kind::None) {
    if (op != "==" && op != "!=")
      return evalError("'" + op + "' with None");
    bool same = a.kind == b.kind;
    return makeBool(op == "==" ? same : !same);
  }
  double x = asDouble(a), y = asDouble(b);
  bool useInt = a.kind != Value::Kind::Float && b.kind != Value::Kind::Float;
  auto cmp = [&](auto p, auto q) {
    if (op == "==") return p == q;
    if (op == "!=") return p != q;
    if (op == "<") return p < q;
    if (op == "<=") return p <= q;
    if (op == ">") return p > q;
    return p >= q;
  };
  return makeBool(useInt ? cmp(a.intValue, b.intValue) : cmp(x, y));
}

Expected<Value> eval(const Node &n, const std::map<std::string, Value> &values) {
  switch (n.kind) {
  case Node::Kind::Literal: return n.value;
  case Node::Kind::Name: {
    auto it = values.find(n.name);
    if (it == values.end())
      return evalError("'" + n.name + "' has no value at build time");
    return it->second;
  }
  case Node::Kind::Negate: {
    auto v = eval(n.children[0], values);
    if (!v) return v;
    if (!numeric(*v)) return evalError("'-' on None");
    if (v->kind == Value::Kind::Float)
      return makeFloat(-v->floatValue);
    if (v->intValue == INT64_MIN)
      return overflowError("-");
    return makeInt(-v->intValue);
  }
  case Node::Kind::Not: {
    auto v = eval(n.children[0], values);
    if (!v) return v;
    return makeBool(!truthy(*v));
  }
  case Node::Kind::And:
  case Node::Kind::Or: {
    auto a = eval(n.children[0], values);
    if (!a) return a;
    if (truthy(*a) == (n.kind == Node::Kind::Or))
      return makeBool(truthy(*a));
    auto b = eval(n.children[1], values);
    if (!b) return b;
    return makeBool(truthy(*b));
  }
  case Node::Kind::Conditional: {
    auto c = eval(n.children[0], values);
    if (!c) return c;
    return eval(n.children[truthy(*c) ? 1 : 2], values);
  }
  case Node::Kind::Binary:
  case Node::Kind::Compare: {
    auto a = eval(n.children[0], values);
    if (!a) return a;
    auto b = eval(n.children[1], values);
    if (!b) return b;
    return n.kind == Node::Kind::Binary ? arith(n.op, *a, *b) : compare(n.op, *a, *b);
  }
  case Node::Kind::Call: {
    std::vector<Value> args;
    for (const Node &child : n.children) {
      auto v = eval(child, values);
      if (!v) return v;
      if (n.op == "bool" || n.op == "int" || n.op == "float")
        return convert(n.op, *v);
      if (!numeric(*v)) return evalError(n.op + "() of None");
      args.push_back(*v);
    }
    if (n.op == "min" || n.op == "max") {
      Value best = args[0];
      for (std::size_t i = 1; i < args.size(); ++i)
        if (truthy(*compare(n.op == "min" ? "<" : ">", args[i], best)))
          best = args[i];
      return best;
    }
    if (n.op == "fdiv") {   // Python's a / b: a float, whatever the operands
      if (asDouble(args[1]) == 0)
        return evalError("division by zero");
      return makeFloat(asDouble(args[0]) / asDouble(args[1]));
    }
    if (n.op == "abs" && args[0].kind == Value::Kind::Float)
      return makeFloat(std::fabs(args[0].floatValue));
    if (n.op == "abs")
      return args[0].intValue == INT64_MIN ? Expected<Value>(overflowError("abs"))
                                           : makeInt(std::llabs(args[0].intValue));
    if (args[0].kind == Value::Kind::Float || (args.size() > 1 && args[1].kind == Value::Kind::Float))
      return evalError(n.op + "() of a float");
    if (n.op == "cdiv") {
      if (args[1].intValue == 0) return evalError("division by zero");
      std::optional<std::int64_t> q = checkedCdiv(args[0].intValue, args[1].intValue);
      return q ? makeInt(*q) : Expected<Value>(overflowError("cdiv"));
    }
    if (args[0].intValue > (std::int64_t(1) << 62))   // the next power of 2 is 2^63
      return overflowError("next_power_of_2");
    return makeInt(nextPow2(args[0].intValue));
  }
  }
  return evalError("unknown expression");
}

// ---------------------------------------------------------------------------------------------
// C emission.

struct Emitted {
  enum class Type { Int, Float, Bool, Pointer, None };
  Type type = Type::Int;
  std::string text;
  std::optional<Value> constant;
  std::set<std::string> helpers{};   ///< helper functions the text calls
};

std::string intLiteral(std::int64_t v) {
  if (v == INT64_MIN)
    return "INT64_MIN";
  std::string digits = std::to_string(v < 0 ? -v : v);
  std::string body = v > INT32_MAX || v < INT32_MIN ? "INT64_C(" + digits + ")" : digits;
  return v < 0 ? "(-" + body + ")" : body;
}

Emitted constantC(const Value &v) {
  Emitted e;
  e.constant = v;
  switch (v.kind) {
  case Value::Kind::Int: e.type = Emitted::Type::Int; e.text = intLiteral(v.intValue); break;
  case Value::Kind::Bool: e.type = Emitted::Type::Bool; e.text = v.intValue ? "1" : "0"; break;
  case Value::Kind::None: e.type = Emitted::Type::None; e.text = "NULL"; break;
  case Value::Kind::Float: {
    std::ostringstream out;
    out.precision(17);
    out << v.floatValue;
    std::string s = out.str();
    if (s.find_first_of(".eEn") == std::string::npos)
      s += ".0";
    e.type = Emitted::Type::Float;
    e.text = s;
    break;
  }
  }
  return e;
}

bool isNumber(Emitted::Type t) {
  return t == Emitted::Type::Int || t == Emitted::Type::Float || t == Emitted::Type::Bool;
}

/// \p e as a C truth value (0 or 1) for && || ?: and bool(): a number is compared with 0
/// rather than used as is (gcc's -Wint-in-bool-context warns of `a * b && c`).
std::string truthText(const Emitted &e) {
  switch (e.type) {
  case Emitted::Type::Bool: return e.text;
  case Emitted::Type::Pointer: return "(" + e.text + " != NULL)";
  default: return "(" + e.text + " != 0)";
  }
}

/// Python's `not e`.
std::string notText(const Emitted &e) {
  switch (e.type) {
  case Emitted::Type::Bool: return "(!" + e.text + ")";
  case Emitted::Type::Pointer: return "(" + e.text + " == NULL)";
  default: return "(" + e.text + " == 0)";
  }
}

class Emitter {
public:
  explicit Emitter(const HeuristicResolver &resolve) : resolve_(resolve) {}

  Expected<Emitted> emit(const Node &n) {
    std::vector<Emitted> kids;
    if (n.kind != Node::Kind::Literal && n.kind != Node::Kind::Name) {
      for (const Node &child : n.children) {
        auto e = emit(child);
        if (!e) return e;
        kids.push_back(std::move(*e));
      }
      // Fold: every operand known (the conditional only needs its condition).
      bool allConstant = true;
      for (const Emitted &k : kids)
        allConstant = allConstant && k.constant.has_value();
      if (n.kind == Node::Kind::Conditional && kids[0].constant)
        return kids[truthy(*kids[0].constant) ? 1 : 2];
      if (allConstant) {
        std::map<std::string, Value> none;
        Node folded = n;
        for (std::size_t i = 0; i < kids.size(); ++i)
          folded.children[i] = literal(*kids[i].constant);
        auto v = eval(folded, none);
        if (!v) return v.takeError();
        return constantC(*v);
      }
    }
    switch (n.kind) {
    case Node::Kind::Literal: return constantC(n.value);
    case Node::Kind::Name: return name(n.name);
    case Node::Kind::Negate:
      if (auto s = numericOperand(kids[0], "-"); !s) return s.takeError();
      return made(kids[0].type == Emitted::Type::Float ? Emitted::Type::Float : Emitted::Type::Int,
                  "(-" + kids[0].text + ")", kids);
    case Node::Kind::Not: return made(Emitted::Type::Bool, notText(kids[0]), kids);
    case Node::Kind::And:
    case Node::Kind::Or: return logical(n.kind == Node::Kind::And, kids);
    case Node::Kind::Conditional:
      return made(kids[1].type == Emitted::Type::Float || kids[2].type == Emitted::Type::Float
                      ? Emitted::Type::Float
                      : kids[1].type,
                  "(" + truthText(kids[0]) + " ? " + kids[1].text + " : " + kids[2].text + ")",
                  kids);
    case Node::Kind::Compare: return comparison(n.op, kids);
    case Node::Kind::Binary: return binary(n.op, kids);
    case Node::Kind::Call: return call(n.op, kids);
    }
    return evalError("unknown expression");
  }

private:
  /// A new value computed from \p from: it calls the helpers they call.
  static Emitted made(Emitted::Type type, std::string text, const std::vector<Emitted> &from) {
    Emitted e{type, std::move(text), std::nullopt, {}};
    for (const Emitted &k : from)
      e.helpers.insert(k.helpers.begin(), k.helpers.end());
    return e;
  }
  static Emitted withHelper(Emitted e, const char *helper) {
    e.helpers.insert(helper);
    return e;
  }

  Status numericOperand(const Emitted &e, const std::string &op) {
    if (!isNumber(e.type))
      return evalError("'" + op + "' of a pointer or None");
    return ok();
  }

  /// and / or with one operand known: the other alone (operands have no side effects), so
  /// the C has no `1 && x`.
  Expected<Emitted> logical(bool isAnd, const std::vector<Emitted> &kids) {
    for (std::size_t i = 0; i < 2; ++i)
      if (kids[i].constant) {
        if (truthy(*kids[i].constant) != isAnd)   // false and x, true or x
          return constantC(makeBool(!isAnd));
        const Emitted &other = kids[1 - i];
        return made(Emitted::Type::Bool, truthText(other), {other});
      }
    return made(Emitted::Type::Bool,
                "(" + truthText(kids[0]) + (isAnd ? " && " : " || ") + truthText(kids[1]) + ")",
                kids);
  }

  Expected<Emitted> comparison(const std::string &op, const std::vector<Emitted> &kids) {
    const bool none0 = kids[0].type == Emitted::Type::None;
    const bool none1 = kids[1].type == Emitted::Type::None;
    if (none0 || none1) {
      const Emitted &other = kids[none0 ? 1 : 0];
      if (op != "==" && op != "!=")
        return evalError("'" + op + "' with None (only 'is None' / 'is not None')");
      // A scalar argument of the C API is never None: the test is decided here, so the C
      // holds no comparison whose result is known.
      if (isNumber(other.type))
        return constantC(makeBool(op == "!="));
      return made(Emitted::Type::Bool, "(" + other.text + " " + op + " NULL)", kids);
    }
    if (kids[0].type == Emitted::Type::Pointer || kids[1].type == Emitted::Type::Pointer)
      return evalError("a pointer can only be compared with None ('is None' / 'is not None')");
    return made(Emitted::Type::Bool, "(" + kids[0].text + " " + op + " " + kids[1].text + ")",
                kids);
  }

  Expected<Emitted> binary(const std::string &op, const std::vector<Emitted> &kids) {
    for (const Emitted &k : kids)
      if (auto s = numericOperand(k, op); !s) return s.takeError();
    if (op == "**")
      return power(kids);
    bool isFloat = kids[0].type == Emitted::Type::Float || kids[1].type == Emitted::Type::Float;
    if (isFloat && (op == "%" || op == "//"))
      return evalError("'" + op + "' of a float is not supported in generated C");
    return made(isFloat ? Emitted::Type::Float : Emitted::Type::Int,
                "(" + kids[0].text + " " + (op == "//" ? "/" : op) + " " + kids[1].text + ")",
                kids);
  }

  /// base ** exponent, with Python's types: an int for an int base and a known non-negative
  /// int exponent; a double otherwise (an int exponent read at launch may be negative).
  Expected<Emitted> power(const std::vector<Emitted> &kids) {
    const Emitted &base = kids[0], &exponent = kids[1];
    std::optional<std::int64_t> known;
    if (exponent.constant && exponent.constant->kind != Value::Kind::Float) {
      known = exponent.constant->intValue;
    } else if (exponent.constant) {
      const double e = exponent.constant->floatValue;
      if (std::trunc(e) != e || std::fabs(e) > 1e18)
        return evalError("'**' with the fractional exponent " + exponent.text +
                         " computed at launch (C's pow() needs the math library)");
      known = static_cast<std::int64_t>(e);
    } else if (exponent.type == Emitted::Type::Float) {
      return evalError("'**' with a float exponent read at launch is not supported in generated "
                       "C (C's pow() needs the math library)");
    }
    const bool intResult = base.type != Emitted::Type::Float && known && *known >= 0 &&
                           exponent.type != Emitted::Type::Float;
    if (intResult && *known == 0)
      return constantC(makeInt(1));   // Python: x ** 0 is 1 for every x
    if (intResult && *known == 1)
      return made(Emitted::Type::Int,
                  base.type == Emitted::Type::Bool ? "(int64_t)" + base.text : base.text, {base});
    if (intResult)
      return withHelper(made(Emitted::Type::Int,
                             std::string(kHeuristicPowInt) + "(" + base.text + ", " +
                                 intLiteral(*known) + ")",
                             {base}),
                        kHeuristicPowInt);
    const std::string exponentText = known ? intLiteral(*known) : exponent.text;
    return withHelper(made(Emitted::Type::Float,
                           std::string(kHeuristicPowFloat) + "(" + base.text + ", " +
                               exponentText + ")",
                           kids),
                      kHeuristicPowFloat);
  }

  Expected<Emitted> name(const std::string &n) {
    auto binding = resolve_(n);
    if (!binding)
      return evalError("'" + n + "' is not a parameter of the kernel");
    switch (binding->kind) {
    case HeuristicBinding::Kind::Constant: return constantC(binding->value);
    case HeuristicBinding::Kind::Int:
      return Emitted{Emitted::Type::Int, "(int64_t)" + binding->cExpr, std::nullopt, {}};
    case HeuristicBinding::Kind::Float:
      return Emitted{Emitted::Type::Float, "(double)" + binding->cExpr, std::nullopt, {}};
    case HeuristicBinding::Kind::Pointer:
      return Emitted{Emitted::Type::Pointer, binding->cExpr, std::nullopt, {}};
    }
    return evalError("unknown binding");
  }

  /// bool(), int(), float(): Python's conversions.
  Expected<Emitted> conversion(const std::string &fn, const Emitted &arg) {
    if (!isNumber(arg.type))
      return evalError(fn + "() of a pointer is not supported (Python's reads a tensor's "
                            "value); test it with 'is None' / 'is not None'");
    if (fn == "bool")
      return made(Emitted::Type::Bool, truthText(arg), {arg});
    if (fn == "float")
      return made(Emitted::Type::Float,
                  arg.type == Emitted::Type::Float ? arg.text : "(double)" + arg.text, {arg});
    if (arg.type == Emitted::Type::Float)   // truncates toward zero, as Python's int()
      return withHelper(made(Emitted::Type::Int,
                             std::string(kHeuristicFloatToInt) + "(" + arg.text + ")", {arg}),
                        kHeuristicFloatToInt);
    return made(Emitted::Type::Int,
                arg.type == Emitted::Type::Bool ? "(int64_t)" + arg.text : arg.text, {arg});
  }

  Expected<Emitted> call(const std::string &fn, const std::vector<Emitted> &args) {
    if (fn == "bool" || fn == "int" || fn == "float")
      return conversion(fn, args[0]);
    for (const Emitted &a : args)
      if (auto s = numericOperand(a, fn + "()"); !s) return s.takeError();
    bool isFloat = false;
    for (const Emitted &a : args)
      isFloat = isFloat || a.type == Emitted::Type::Float;
    const Emitted::Type type = isFloat ? Emitted::Type::Float : Emitted::Type::Int;
    if (fn == "fdiv")   // both as double, as Python divides (a divisor of 0 gives inf here)
      return made(Emitted::Type::Float,
                  "((double)" + args[0].text + " / (double)" + args[1].text + ")", args);
    if (fn == "min" || fn == "max") {
      // Operands are side-effect free, so repeating them is safe.
      std::string acc = args[0].text;
      for (std::size_t i = 1; i < args.size(); ++i)
        acc = "(" + args[i].text + (fn == "min" ? " < " : " > ") + acc + " ? " + args[i].text +
              " : " + acc + ")";
      return made(type, acc, args);
    }
    if (fn == "abs")
      return made(type, "(" + args[0].text + " < 0 ? -" + args[0].text + " : " + args[0].text + ")",
                  args);
    if (isFloat)
      return evalError(fn + "() of a float");
    if (fn == "cdiv")
      return made(type,
                  "((" + args[0].text + " + " + args[1].text + " - 1) / " + args[1].text + ")",
                  args);
    return withHelper(made(type, std::string(kHeuristicNextPow2) + "(" + args[0].text + ")", args),
                      kHeuristicNextPow2);
  }

  const HeuristicResolver &resolve_;
};

} // namespace

std::string formatHeuristicValue(const HeuristicValue &value) {
  switch (value.kind) {
  case Value::Kind::Int: return std::to_string(value.intValue);
  case Value::Kind::Bool: return value.intValue ? "True" : "False";
  case Value::Kind::None: return "None";
  case Value::Kind::Float: {
    std::string s = constantC(value).text;
    return s;
  }
  }
  return {};
}

Expected<HeuristicExpr> parseHeuristic(std::string_view text, HeuristicDialect dialect,
                                       std::string_view argName) {
  if (text.size() > kMaxHeuristicLength)
    return parseError(1, "the expression is longer than " +
                             std::to_string(kMaxHeuristicLength) + " characters");
  auto tokens = tokenize(text);
  if (!tokens)
    return tokens.takeError();
  auto expr = Parser(std::move(*tokens), dialect, argName).parse();
  if (!expr)
    return expr;
  // The C form is what the metadata records and the linker reads back: it must be within the
  // same limits (it has a parenthesis per operation, so it nests deeper than the text may).
  const std::string cForm = format(expr->root);
  if (cForm.size() > kMaxHeuristicLength)
    return parseError(1, "the expression's C form is longer than " +
                             std::to_string(kMaxHeuristicLength) + " characters");
  auto cTokens = tokenize(cForm);
  auto again = cTokens ? Parser(std::move(*cTokens), HeuristicDialect::C, argName).parse()
                       : Expected<HeuristicExpr>(cTokens.takeError());
  if (!again)
    return parseError(1, "the expression's C form: " + again.error().message);
  return expr;
}

std::string formatHeuristic(const HeuristicExpr &expr) { return format(expr.root); }

bool isBoolValued(const HeuristicExpr &expr) { return boolValued(expr.root); }

std::set<std::string> namesReadAsValues(const HeuristicExpr &expr) {
  std::set<std::string> out;
  collectValueNames(expr.root, out);
  return out;
}

Expected<HeuristicValue> evaluateHeuristic(const HeuristicExpr &expr,
                                           const std::map<std::string, HeuristicValue> &values) {
  return eval(expr.root, values);
}

Expected<std::string> emitHeuristicC(const HeuristicExpr &expr, const HeuristicResolver &resolve,
                                     std::set<std::string> *helpers) {
  auto e = Emitter(resolve).emit(expr.root);
  if (!e)
    return e.takeError();
  if (helpers)
    helpers->insert(e->helpers.begin(), e->helpers.end());
  return e->text;
}

std::string heuristicHelperDefinition(const std::string &helper) {
  if (helper == kHeuristicNextPow2)
    return "/* triton.next_power_of_2 */\n"
           "static int64_t tta_next_power_of_2(int64_t n) {\n"
           "  uint64_t v = (uint64_t)n - 1u;\n"
           "  v |= v >> 1; v |= v >> 2; v |= v >> 4; v |= v >> 8; v |= v >> 16; v |= v >> 32;\n"
           "  return (int64_t)(v + 1u);\n"
           "}\n";
  if (helper == kHeuristicPowInt)   // unsigned: an overflow wraps rather than being undefined
    return "/* Python's base ** exp for exp >= 0 */\n"
           "static int64_t tta_pow_int(int64_t base, int64_t exp) {\n"
           "  uint64_t result = 1u, factor = (uint64_t)base;\n"
           "  for (uint64_t n = (uint64_t)exp; n != 0u; n >>= 1) {\n"
           "    if (n & 1u) result *= factor;\n"
           "    factor *= factor;\n"
           "  }\n"
           "  return (int64_t)result;\n"
           "}\n";
  if (helper == kHeuristicPowFloat)
    return "/* Python's float base ** exp for an integer exp (no libm) */\n"
           "static double tta_pow_float(double base, int64_t exp) {\n"
           "  double result = 1.0;\n"
           "  for (uint64_t n = exp < 0 ? 0u - (uint64_t)exp : (uint64_t)exp; n != 0u; n >>= 1) {\n"
           "    if (n & 1u) result *= base;\n"
           "    base *= base;\n"
           "  }\n"
           "  return exp < 0 ? 1.0 / result : result;\n"
           "}\n";
  if (helper == kHeuristicFloatToInt)
    return "/* Python's int() of a float: toward zero (saturated; NaN is 0) */\n"
           "static int64_t tta_float_to_int(double x) {\n"
           "  if (x >= -9223372036854775808.0 && x < 9223372036854775808.0)\n"
           "    return (int64_t)x;\n"
           "  return x > 0 ? INT64_MAX : x < 0 ? INT64_MIN : 0;\n"
           "}\n";
  return {};
}

} // namespace tta
