#include "tuner/kernel_arguments.h"

#include <triton_aot/runtime.h>

#include <algorithm>
#include <cstring>
#include <limits>

namespace tta::tune {

namespace {

Diagnostic bindError(const KernelSpec &spec, std::string message, std::string note = {}) {
  Diagnostic diag = makeError(ExitCode::UsageError, std::move(message));
  diag.file = spec.where;
  if (!note.empty())
    diag.notes.push_back(std::move(note));
  return diag;
}

bool isIntegerType(const std::string &type) {
  return (type.size() > 1 && (type[0] == 'i' || type[0] == 'u') &&
          std::all_of(type.begin() + 1, type.end(), [](char c) { return c >= '0' && c <= '9'; }));
}

/// "*fp16" -> "fp16"; "tensordesc<fp16[64, 64]>" -> "fp16".
std::string pointeeType(const ManifestParam &param) {
  if (param.kind == "pointer")
    return param.type.rfind("*", 0) == 0 ? param.type.substr(1) : param.type;
  auto open = param.type.find('<'), bracket = param.type.find('[');
  if (open == std::string::npos || bracket == std::string::npos || bracket < open)
    return "";
  return param.type.substr(open + 1, bracket - open - 1);
}

std::string joinNames(const std::vector<BoundParam> &params) {
  std::string out;
  for (const BoundParam &p : params)
    out += (out.empty() ? "" : ", ") + p.param.cName;
  return out;
}

std::string describeKey(const KernelSpec &spec, const std::vector<std::int64_t> &key) {
  std::string out;
  for (std::size_t i = 0; i < key.size(); ++i)
    out += (i ? " " : "") + spec.key[i] + "=" + std::to_string(key[i]);
  return out;
}

ExprNames keyNames(const KernelSpec &spec, const std::vector<std::int64_t> &key) {
  ExprNames names;
  for (std::size_t i = 0; i < key.size(); ++i)
    names[spec.key[i]] = key[i];
  return names;
}

/// Writes \p value as the C type of \p param into \p slot.
Status storeScalar(const BoundKernel &bound, const BoundParam &p, const ExprValue &value,
                   std::array<unsigned char, 8> &slot, const std::string &at) {
  const std::string &type = p.param.type;
  slot.fill(0);
  if (type == "fp32" || type == "fp64" || type == "fp16" || type == "bf16") {
    double v = value.asDouble();
    if (type == "fp64") {
      std::memcpy(slot.data(), &v, sizeof v);
    } else if (type == "fp32") {
      float f = static_cast<float>(v);
      std::memcpy(slot.data(), &f, sizeof f);
    } else {
      std::uint16_t bits = type == "fp16" ? triton_aot_fp16(static_cast<float>(v))
                                          : triton_aot_bf16(static_cast<float>(v));
      std::memcpy(slot.data(), &bits, sizeof bits);
    }
    return ok();
  }
  if (!isIntegerType(type))
    return bindError(*bound.spec, at + ": parameter " + p.param.cName + " has type " + type +
                                      ", which the tuner cannot pass");
  if (value.isFloat)
    return bindError(*bound.spec, at + " is " + std::to_string(value.floating) + ", but " +
                                      p.param.cName + " is an integer (" + type + ")");
  std::int64_t v = value.integer;
  int bits = std::stoi(type.substr(1));
  bool isUnsigned = type[0] == 'u';
  if (bits == 1) {
    slot[0] = v != 0;
    return ok();
  }
  bool fits = bits == 64 ? (!isUnsigned || v >= 0)
              : isUnsigned ? (v >= 0 && v < (std::int64_t(1) << bits))
                           : (v >= -(std::int64_t(1) << (bits - 1)) &&
                              v < (std::int64_t(1) << (bits - 1)));
  if (!fits)
    return bindError(*bound.spec, at + " is " + std::to_string(v) + ", out of range for " +
                                      p.param.cName + " (" + type + ")");
  std::memcpy(slot.data(), &v, static_cast<std::size_t>(bits / 8));   // little-endian
  return ok();
}

} // namespace

int elementBytes(const std::string &type) {
  if (type == "i1" || type == "i8" || type == "u8" || type.rfind("fp8", 0) == 0)
    return 1;
  if (type == "i16" || type == "u16" || type == "fp16" || type == "bf16")
    return 2;
  if (type == "i32" || type == "u32" || type == "fp32")
    return 4;
  if (type == "i64" || type == "u64" || type == "fp64")
    return 8;
  return 0;
}

std::vector<unsigned char> randomElements(const std::string &type, std::int64_t count,
                                          std::mt19937_64 &random) {
  int size = elementBytes(type);
  std::vector<unsigned char> bytes(static_cast<std::size_t>(count) * size);
  std::uniform_real_distribution<float> unit(-1.0f, 1.0f);
  std::uniform_int_distribution<int> small(1, 8);
  auto nonZero = [&] {
    float v = 0;
    while (v == 0)
      v = unit(random);
    return v;
  };
  for (std::int64_t i = 0; i < count; ++i) {
    unsigned char *out = bytes.data() + i * size;
    if (type == "fp32") {
      float v = nonZero();
      std::memcpy(out, &v, 4);
    } else if (type == "fp64") {
      double v = nonZero();
      std::memcpy(out, &v, 8);
    } else if (type == "fp16" || type == "bf16") {
      std::uint16_t v = type == "fp16" ? triton_aot_fp16(nonZero()) : triton_aot_bf16(nonZero());
      if ((v & 0x7fff) == 0)   // a tiny value that rounded to zero
        v |= 0x3c00;
      std::memcpy(out, &v, 2);
    } else if (type.rfind("fp8e4", 0) == 0) {   // e4m3: sign, exponent 4..7 (1/8 to 1), mantissa
      *out = static_cast<unsigned char>((random() & 0x80) | (4 + random() % 4) << 3 | (random() & 7));
    } else if (type.rfind("fp8", 0) == 0) {     // e5m2: exponent 12..15 (1/8 to 1)
      *out = static_cast<unsigned char>((random() & 0x80) | (12 + random() % 4) << 2 | (random() & 3));
    } else if (type == "i1") {
      *out = 1;
    } else {
      std::int64_t v = small(random);
      std::memcpy(out, &v, static_cast<std::size_t>(size));   // little-endian
    }
  }
  return bytes;
}

Expected<BoundKernel> bindKernel(const KernelSpec &spec, const ManifestKernel &kernel) {
  BoundKernel bound;
  bound.spec = &spec;
  bound.kernel = &kernel;
  for (const ManifestParam &param : kernel.params)
    bound.params.push_back({param, nullptr, -1, ""});

  auto find = [&](const std::string &name) -> BoundParam * {
    for (BoundParam &p : bound.params)
      if (p.param.cName == name || p.param.name == name)
        return &p;
    return nullptr;
  };
  for (std::size_t k = 0; k < spec.key.size(); ++k) {
    BoundParam *p = find(spec.key[k]);
    if (!p || p->param.kind != "scalar" || !isIntegerType(p->param.type) || p->param.type == "i1")
      return bindError(spec,
                       "key name '" + spec.key[k] + "' is not an integer runtime parameter of " +
                           kernel.name + (p ? " (it is " + p->param.type + ")" : ""),
                       "the key names integer parameters the C function takes: " +
                           [&] {
                             std::string list;
                             for (const BoundParam &q : bound.params)
                               if (q.param.kind == "scalar" && isIntegerType(q.param.type) &&
                                   q.param.type != "i1")
                                 list += (list.empty() ? "" : ", ") + q.param.cName;
                             return list.empty() ? std::string("(none)") : list;
                           }());
    p->keyIndex = static_cast<int>(k);
  }
  for (const SpecArg &arg : spec.args) {
    BoundParam *p = find(arg.name);
    if (!p)
      return bindError(spec, "args." + arg.name + " is not a parameter of " + kernel.name,
                       "its C parameters are " + joinNames(bound.params));
    p->expression = &arg.expression;
  }
  for (BoundParam &p : bound.params) {
    if (!p.expression && p.keyIndex < 0)
      return bindError(spec, "args has no " + p.param.cName + ", a parameter of " + kernel.name +
                                 " (" + p.param.type + ")",
                       "give every runtime parameter: a pointer's element count or a scalar's "
                       "value, e.g. \"" + p.param.cName + "\": \"M * K\"");
    if (p.param.kind == "pointer" || p.param.kind == "tensordesc") {
      p.elementType = pointeeType(p.param);
      if (elementBytes(p.elementType) == 0)
        return bindError(spec, "args." + p.param.cName + ": cannot fill a buffer of " +
                                   p.param.type + " (element type '" + p.elementType + "')");
    }
  }
  if (takesCallerGrid(kernel) && !spec.grid)
    return bindError(spec, "kernel " + kernel.name + " takes the caller's grid: give \"grid\"",
                     "e.g. \"grid\": [\"cdiv(M, BLOCK_M)\", \"1\", \"1\"] over the key and the "
                     "config's constexprs");
  if (!takesCallerGrid(kernel) && spec.grid)
    return bindError(spec, "kernel " + kernel.name + " computes its own grid: remove \"grid\"");
  return bound;
}

Expected<LaunchArguments> buildArguments(const BoundKernel &bound,
                                         const std::vector<std::int64_t> &key,
                                         std::mt19937_64 &random, const Uploader &upload) {
  ExprNames names = keyNames(*bound.spec, key);
  LaunchArguments out;
  out.slots.resize(bound.params.size());
  for (std::size_t i = 0; i < bound.params.size(); ++i) {
    const BoundParam &p = bound.params[i];
    std::string at = "args." + p.param.cName + " at " + describeKey(*bound.spec, key);
    ExprValue value{false, p.keyIndex >= 0 ? key[p.keyIndex] : 0, 0};
    if (p.expression) {
      ExprError error;
      if (!p.expression->evaluate(names, value, error))
        return bindError(*bound.spec, "args." + p.param.cName + " \"" + p.expression->text() +
                                          "\": column " + std::to_string(error.column) + ": " +
                                          error.message + " (at " +
                                          describeKey(*bound.spec, key) + ")");
    }
    if (p.elementType.empty()) {
      if (Status stored = storeScalar(bound, p, value, out.slots[i], at); !stored)
        return stored.takeError();
      continue;
    }
    if (value.isFloat || value.integer <= 0)
      return bindError(*bound.spec, at + " gives " +
                                        (value.isFloat ? std::to_string(value.floating)
                                                       : std::to_string(value.integer)) +
                                        " elements; a buffer needs a positive integer count");
    int size = elementBytes(p.elementType);
    if (value.integer > std::numeric_limits<std::int64_t>::max() / 8 / size)
      return bindError(*bound.spec, at + " gives " + std::to_string(value.integer) +
                                        " elements, too many to allocate");
    auto address = upload(randomElements(p.elementType, value.integer, random));
    if (!address)
      return address.takeError();
    auto pointer = reinterpret_cast<const void *>(static_cast<std::uintptr_t>(*address));
    std::memcpy(out.slots[i].data(), &pointer, sizeof pointer);
  }
  for (auto &slot : out.slots)
    out.pointers.push_back(slot.data());
  return out;
}

Expected<std::array<std::uint32_t, 3>> evaluateGrid(const BoundKernel &bound,
                                                    const std::vector<std::int64_t> &key,
                                                    const ManifestConfig &config) {
  std::array<std::uint32_t, 3> grid{1, 1, 1};
  if (!bound.spec->grid)
    return grid;
  ExprNames names = integerConstexprs(config);
  for (const auto &[name, value] : keyNames(*bound.spec, key))
    names[name] = value;   // the key wins over a constexpr of the same name
  for (std::size_t d = 0; d < 3; ++d) {
    const Expression &expression = (*bound.spec->grid)[d];
    ExprValue value;
    ExprError error;
    std::string at = "grid[" + std::to_string(d) + "] \"" + expression.text() + "\"";
    if (!expression.evaluate(names, value, error))
      return bindError(*bound.spec, at + ": column " + std::to_string(error.column) + ": " +
                                        error.message + " (config " + config.name + ", " +
                                        describeKey(*bound.spec, key) + ")");
    if (value.isFloat || value.integer < 0 || value.integer > 0xffffffffll)
      return bindError(*bound.spec, at + " is " +
                                        (value.isFloat ? std::to_string(value.floating)
                                                       : std::to_string(value.integer)) +
                                        " (config " + config.name + ", " +
                                        describeKey(*bound.spec, key) +
                                        "); a grid dimension is an integer from 0 to 2^32 - 1");
    grid[d] = static_cast<std::uint32_t>(value.integer);
  }
  return grid;
}

} // namespace tta::tune
