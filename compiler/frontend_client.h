// What the compiler makes of the frontend worker's answers: Triton version checks, errors
// turned into diagnostics, and compile requests built from resolved signatures.
#pragma once

#include "compiler/config.h"
#include "compiler/signature.h"
#include "contract/compile_answer.h"   // checkDescribeAnswer, checkCompileAnswer
#include "contract/diagnostic.h"
#include "contract/target.h"

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace tta {

/// Checks the worker's hello: Triton importable and at least kMinTritonVersion.
Status checkHello(const nlohmann::json &hello, const std::string &python);

/// A prepared pool worker's hello names the targets its zygote compiled for before forking it
/// ("warmed_up": ["cuda:90", ...]): those names, joined by ", "; "" when it has none. Entries
/// that are not short target names are left out.
std::string warmedUpTargets(const nlohmann::json &hello);

/// Compares dotted versions numerically ("3.10.0" > "3.9.1"); suffixes such as "+git" ignored.
int compareVersions(const std::string &a, const std::string &b);

/// Turns an {"ok": false, "error": {...}} answer into a diagnostic. \p fallbackFile locates
/// errors the worker could not place.
Diagnostic diagnosticFromResponse(const nlohmann::json &response, const std::string &fallbackFile);

/// The resolved signature with one entry per parameter of the function (a describe answer), in
/// its order: entries by position, then those written by name, then each parameter left out
/// with its default compiled in (as a constexpr, as Triton's launch uses it). Checks that every
/// parameter without a default has an entry, every name is a parameter, and tl.constexpr
/// parameters get values, not types. A complete positional signature comes back as it is.
Expected<Signature> completeSignature(const Signature &signature, const nlohmann::json &describe,
                                      const std::string &function, const std::string &file);

/// The signature with each name that its config left without a value (resolveSignature)
/// decided as Triton's launch decides the parameter it stands for, when it is that parameter's
/// own name (EVEN_N in EVEN_N's place, by position or as EVEN_N=EVEN_N): a parameter that
/// @triton.heuristics sets is left out (its heuristic gives the value, per variant; entries by
/// position after it go by name), any other takes its default. So a signature that names every
/// parameter, as upstream compile.py's users write one, builds. Errors, at the kernel's line:
/// a name that is no parameter (the parameters listed), one in another parameter's place, a
/// constexpr with no default and no heuristic (how to give it a value), a runtime parameter
/// named without a default. \p configLabel names the config in messages ("config big"; "": none
/// was declared).
Expected<Signature> resolveKernelNames(const Signature &signature, const std::string &configLabel,
                                       const nlohmann::json &describe, const std::string &function,
                                       const std::string &file);

/// Checks that no entry asks for a hint Triton's @jit(do_not_specialize=...,
/// do_not_specialize_on_alignment=...) rules out (describe's lists, by name): ":16" or ":1" on a
/// do_not_specialize parameter, ":16" on a do_not_specialize_on_alignment one. Such a variant
/// would dispatch on a property the kernel's author asked never to specialize on.
/// The parameter each entry of \p signature gives a value to: its keyword, else the describe
/// answer's parameter at its position ("" past the end).
std::vector<std::string> entryParamNames(const Signature &signature, const nlohmann::json &describe);

Status checkDoNotSpecialize(const Signature &signature, const nlohmann::json &describe,
                            const std::string &function, const std::string &file);

/// The "params" list of a compile request.
nlohmann::json requestParams(const Signature &signature, const nlohmann::json &describe);

/// The "target" object of a compile request: CUDA arch as an integer, HIP processor string.
nlohmann::json requestTarget(const Target &target);

/// Every option \p config sets (num_warps, num_stages and every other option), as the metadata
/// and refusal records list them.
nlohmann::json requestOptions(const Config &config);

/// The "options" object of a compile request for \p backend: requestOptions() less the other
/// backend's options, which Triton ignores there (backendHasOption()).
nlohmann::json requestOptions(const Config &config, Backend backend);

/// JSON value of a constexpr for metadata: number, bool, string, or null.
nlohmann::json constexprJson(const ConstexprValue &value);

} // namespace tta
