// The frontend worker's answers as triton-aot-cc keeps them in its caches: the describe answer
// of a kernel and the compile answer of a variant (docs/frontend-protocol.md). An answer comes
// from a worker, or from a local or remote cache entry that anyone able to write the cache may
// have made: either way it is checked here, once, before the compiler reads any of it. Every
// field the compiler reads has its type and range, and every name that can reach generated C
// (parameter, heuristic, autotune key and config names, the entry symbol) is a C identifier.
#pragma once

#include "contract/diagnostic.h"

#include <nlohmann/json.hpp>

namespace tta {

/// Checks a successful describe answer. Errors name the field ("params[2].name: ..."); the
/// caller says whose answer it was. A name that cannot be a C name is a UsageError (the kernel's
/// own: Python allows names C does not); any other problem an InternalError (no worker of this
/// triton-aot-cc answers so: a broken worker, or a damaged cache entry).
Status checkDescribeAnswer(const nlohmann::json &answer);

/// Checks a successful compile answer with its "describe" attached (as the compiler stores it),
/// the describe answer included. Errors name the field ("metadata.shared: ...",
/// "describe.params[0].name: ...").
Status checkCompileAnswer(const nlohmann::json &answer);

/// Reads a compile-time record (the cache keeps one per job, whatever its sources' contents, so
/// that the next build can start its longest compiles first): {"compile_ms": N}, N at most a day.
Expected<std::uint64_t> readCompileTimeRecord(const nlohmann::json &record);

/// Checks a cached refusal (the target refused the variant last time): "refused" (why), the
/// describe answer, and the kernel file's name as the metadata would give it.
Status checkRefusedAnswer(const nlohmann::json &answer);

} // namespace tta
