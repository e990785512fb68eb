// The hint variants Triton's JIT would compile for the calls a kernel is meant for
// (--specialize-for, SPECIALIZE in CMake): each call's integer arguments specialized on being 1
// or divisible by 16, its pointers on 16-byte alignment, argument by argument, so that a call
// with M = 1 keeps K's, N's and the strides' hints. Calls come as argument values, directly or
// through the expressions a tuning spec gives its arguments ("stride_am=K").
#pragma once

#include "compiler/signature.h"
#include "contract/diagnostic.h"
#include "contract/tune_expression.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace tta {

/// One call: argument name -> integer value. Pointers need no value (they are taken as 16-byte
/// aligned, as every allocator of device memory gives them).
using ExampleCall = std::map<std::string, std::int64_t>;

struct SpecializePolicy {
  std::vector<ExampleCall> calls;   ///< --specialize-for, in order
  /// --specialize-arg NAME=EXPR: a value each call computes from its own values (TUNE_ARGS)
  std::vector<std::pair<std::string, tune::Expression>> args;
  bool empty() const { return calls.empty(); }
};

/// Adds a call, "M=1, N=4096, K=4096" (names and integers, separated by commas or spaces).
Status addSpecializeCall(const std::string &text, SpecializePolicy &policy);
/// Adds an argument expression, "stride_am=K" (the tuning spec's expression language).
Status addSpecializeArg(const std::string &text, SpecializePolicy &policy);

/// The calls with every --specialize-arg evaluated over each one's values (a value the call
/// gives itself wins; one over names the call lacks is left unknown). Errors (a division by
/// zero, an overflow) name the call and the expression.
Expected<std::vector<ExampleCall>> resolveCalls(const SpecializePolicy &policy);

/// The signature Triton's JIT compiles for \p call from \p declared: pointers and integers
/// without a hint get the one the call's value has (a pointer ":16"; an integer ":1" when it
/// is 1, ":16" when divisible by 16), unless the kernel's @triton.jit(do_not_specialize=...,
/// do_not_specialize_on_alignment=...) rules it out (\p describe's lists); nullopt when the
/// call contradicts a hint \p declared asks for (it never dispatches there).
std::optional<Signature> specializeFor(const Signature &declared, const nlohmann::json &describe,
                                       const ExampleCall &call);

/// The signatures of every call, without duplicates and without \p declared itself (which
/// stays as the generic fallback), in the order of the calls.
std::vector<Signature> specializedSignatures(const Signature &declared,
                                             const nlohmann::json &describe,
                                             const std::vector<ExampleCall> &calls);

} // namespace tta
