// Checks shared by the parser tests: a parse that must succeed, and one that must fail with a
// usage error.
#pragma once

#include "contract/diagnostic.h"

#include <gtest/gtest.h>

#include <string_view>

namespace tta {

/// The parsed value; records a failure (with the parser's message) when there is none.
template <class T> T expectParsed(const Expected<T> &result, std::string_view text) {
  EXPECT_TRUE(result) << text << ": " << (result ? "" : result.error().message);
  return result ? *result : T{};
}

/// The diagnostic of a parse that must fail with a usage error.
template <class T> Diagnostic expectUsageError(const Expected<T> &result, std::string_view text) {
  EXPECT_FALSE(result) << text << " parsed";
  if (result)
    return {};
  EXPECT_EQ(result.error().code, ExitCode::UsageError);
  return result.error();
}

} // namespace tta
