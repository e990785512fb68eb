#include "contract/tune_expression.h"

#include "contract/lexing.h"
#include "contract/python_arith.h"

#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <limits>

namespace tta::tune {

struct ExprNode {
  enum class Kind { Literal, Name, Negate, Binary, Call } kind = Kind::Literal;
  int column = 0;
  ExprValue value;                 // Literal
  std::string name;                // Name, Call (the function)
  char op = 0;                     // Binary: * / % + -
  std::vector<std::shared_ptr<const ExprNode>> operands;
};

namespace {

using NodePtr = std::shared_ptr<const ExprNode>;

/// Recursive descent over the text; the first error stops it.
class Parser {
public:
  explicit Parser(std::string_view text) : text_(text) {}

  NodePtr parseAll(ExprError &error) {
    skipSpace();
    NodePtr node = sum();
    skipSpace();
    if (node && pos_ < text_.size())
      fail("unexpected '" + std::string(1, text_[pos_]) + "'");
    if (!error_.message.empty()) {
      error = error_;
      return nullptr;
    }
    return node;
  }

private:
  void skipSpace() {
    while (pos_ < text_.size() && std::isspace(static_cast<unsigned char>(text_[pos_])))
      ++pos_;
  }
  int column() const { return static_cast<int>(pos_) + 1; }
  NodePtr fail(std::string message) {
    if (error_.message.empty())
      error_ = {column(), std::move(message)};
    return nullptr;
  }
  bool peek(char c) {
    skipSpace();
    return pos_ < text_.size() && text_[pos_] == c;
  }

  NodePtr binary(char op, int column, NodePtr left, NodePtr right) {
    if (!left || !right)
      return nullptr;
    auto node = std::make_shared<ExprNode>();
    node->kind = ExprNode::Kind::Binary;
    node->op = op;
    node->column = column;
    node->operands = {std::move(left), std::move(right)};
    return node;
  }

  NodePtr sum() {
    NodePtr left = product();
    while (left && (peek('+') || peek('-'))) {
      int at = column();
      char op = text_[pos_++];
      left = binary(op, at, left, product());
    }
    return left;
  }

  NodePtr product() {
    NodePtr left = unary();
    while (left && (peek('*') || peek('/') || peek('%'))) {
      int at = column();
      char op = text_[pos_++];
      left = binary(op, at, left, unary());
    }
    return left;
  }

  NodePtr unary() {
    if (peek('-') || peek('+')) {
      int at = column();
      char op = text_[pos_++];
      NodePtr operand = unary();
      if (!operand || op == '+')
        return operand;
      auto node = std::make_shared<ExprNode>();
      node->kind = ExprNode::Kind::Negate;
      node->column = at;
      node->operands = {operand};
      return node;
    }
    return primary();
  }

  NodePtr primary() {
    skipSpace();
    if (pos_ >= text_.size())
      return fail(text_.empty() || pos_ == 0 ? "empty expression" : "expression ends early");
    char c = text_[pos_];
    if (c == '(') {
      ++pos_;
      NodePtr inner = sum();
      if (inner && !peek(')'))
        return fail("expected ')'");
      if (inner)
        ++pos_;
      return inner;
    }
    if (std::isdigit(static_cast<unsigned char>(c)) || c == '.')
      return number();
    if (std::isalpha(static_cast<unsigned char>(c)) || c == '_')
      return nameOrCall();
    return fail("unexpected '" + std::string(1, c) + "'");
  }

  NodePtr number() {
    int at = column();
    std::size_t start = pos_;
    bool isFloat = false;
    while (pos_ < text_.size()) {
      char c = text_[pos_];
      if (std::isdigit(static_cast<unsigned char>(c))) {
        ++pos_;
      } else if (c == '.' || c == 'e' || c == 'E') {
        isFloat = true;
        ++pos_;
        if ((c == 'e' || c == 'E') && pos_ < text_.size() && (text_[pos_] == '-' || text_[pos_] == '+'))
          ++pos_;
      } else {
        break;
      }
    }
    std::string literal(text_.substr(start, pos_ - start));
    auto node = std::make_shared<ExprNode>();
    node->column = at;
    if (isFloat) {
      char *end = nullptr;
      double value = std::strtod(literal.c_str(), &end);
      if (end != literal.c_str() + literal.size() || !std::isfinite(value))
        return failAt(at, "malformed number '" + literal + "'");
      node->value.isFloat = true;
      node->value.floating = value;
    } else {
      auto [end, ec] = std::from_chars(literal.data(), literal.data() + literal.size(),
                                       node->value.integer);
      if (ec != std::errc() || end != literal.data() + literal.size())
        return failAt(at, "integer '" + literal + "' does not fit in 64 bits");
    }
    return node;
  }

  NodePtr failAt(int at, std::string message) {
    if (error_.message.empty())
      error_ = {at, std::move(message)};
    return nullptr;
  }

  NodePtr nameOrCall() {
    int at = column();
    std::size_t start = pos_;
    while (pos_ < text_.size() &&
           (std::isalnum(static_cast<unsigned char>(text_[pos_])) || text_[pos_] == '_'))
      ++pos_;
    auto node = std::make_shared<ExprNode>();
    node->column = at;
    node->name = std::string(text_.substr(start, pos_ - start));
    if (!peek('(')) {
      node->kind = ExprNode::Kind::Name;
      return node;
    }
    if (node->name != "cdiv" && node->name != "min" && node->name != "max")
      return failAt(at, "unknown function '" + node->name + "'; the functions are cdiv, min, max");
    node->kind = ExprNode::Kind::Call;
    ++pos_;
    for (int i = 0; i < 2; ++i) {
      if (i == 1) {
        if (!peek(','))
          return fail(node->name + "() takes 2 arguments: expected ','");
        ++pos_;
      }
      NodePtr argument = sum();
      if (!argument)
        return nullptr;
      node->operands.push_back(argument);
    }
    if (!peek(')'))
      return fail(node->name + "() takes 2 arguments: expected ')'");
    ++pos_;
    return node;
  }

  std::string_view text_;
  std::size_t pos_ = 0;
  ExprError error_;
};

bool evaluateNode(const ExprNode &node, const ExprNames &names, ExprValue &out, ExprError &error) {
  auto fail = [&](std::string message) {
    error = {node.column, std::move(message)};
    return false;
  };
  switch (node.kind) {
  case ExprNode::Kind::Literal:
    out = node.value;
    return true;
  case ExprNode::Kind::Name: {
    auto it = names.find(node.name);
    if (it == names.end()) {
      std::string known;
      for (const auto &[name, value] : names)
        known += (known.empty() ? "" : ", ") + name;
      return fail("unknown name '" + node.name + "'; the names are " +
                  (known.empty() ? "(none)" : known));
    }
    out = ExprValue{false, it->second, 0};
    return true;
  }
  case ExprNode::Kind::Negate: {
    if (!evaluateNode(*node.operands[0], names, out, error))
      return false;
    if (out.isFloat)
      out.floating = -out.floating;
    else if (out.integer == std::numeric_limits<std::int64_t>::min())
      return fail("integer overflow");
    else
      out.integer = -out.integer;
    return true;
  }
  case ExprNode::Kind::Binary:
  case ExprNode::Kind::Call:
    break;
  }
  ExprValue a, b;
  if (!evaluateNode(*node.operands[0], names, a, error) ||
      !evaluateNode(*node.operands[1], names, b, error))
    return false;
  std::string op = node.kind == ExprNode::Kind::Call ? node.name : std::string(1, node.op);
  if (a.isFloat || b.isFloat) {
    double x = a.asDouble(), y = b.asDouble();
    out = ExprValue{true, 0, 0};
    if (op == "%" || op == "cdiv")
      return fail(op + " takes integers, not floating values");
    if (op == "/" && y == 0)
      return fail("division by zero");
    out.floating = op == "+" ? x + y : op == "-" ? x - y : op == "*" ? x * y : op == "/" ? x / y
                 : op == "min" ? std::min(x, y) : std::max(x, y);
    return true;
  }
  std::int64_t x = a.integer, y = b.integer;
  std::optional<std::int64_t> r;
  if (op == "min" || op == "max") {
    r = op == "min" ? std::min(x, y) : std::max(x, y);
  } else if (op == "+" || op == "-" || op == "*") {
    r = checkedAddSubMul(op[0], x, y);
  } else {   // / % cdiv
    if (y == 0)
      return fail(op == "cdiv" ? "cdiv by zero" : op == "%" ? "modulo by zero" : "division by zero");
    r = op == "/" ? checkedFloorDiv(x, y) : op == "%" ? floorMod(x, y) : checkedCdiv(x, y);
  }
  if (!r)
    return fail("integer overflow");
  out = ExprValue{false, *r, 0};
  return true;
}

void collectNames(const ExprNode &node, std::vector<std::pair<std::string, int>> &out) {
  if (node.kind == ExprNode::Kind::Name) {
    for (const auto &seen : out)
      if (seen.first == node.name)
        return;
    out.emplace_back(node.name, node.column);
  }
  for (const auto &operand : node.operands)
    collectNames(*operand, out);
}

} // namespace

bool Expression::parse(std::string_view text, Expression &out, ExprError &error) {
  if (text.size() > kMaxExpressionLength) {
    error = {1, "the expression is longer than " + std::to_string(kMaxExpressionLength) +
                    " characters"};
    return false;
  }
  Parser parser(text);
  NodePtr root = parser.parseAll(error);
  if (!root)
    return false;
  out.text_ = std::string(text);
  out.root_ = std::move(root);
  return true;
}

bool Expression::evaluate(const ExprNames &names, ExprValue &out, ExprError &error) const {
  if (!root_) {
    error = {1, "empty expression"};
    return false;
  }
  return evaluateNode(*root_, names, out, error);
}

std::vector<std::pair<std::string, int>> Expression::names() const {
  std::vector<std::pair<std::string, int>> out;
  if (root_)
    collectNames(*root_, out);
  return out;
}

} // namespace tta::tune
