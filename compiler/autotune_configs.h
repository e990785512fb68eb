// The configs of a @triton.autotune'd kernel whose declaration gives none: the decorator's
// triton.Config list (after a build-time early_config_prune), as the frontend's describe answer
// reports it ("autotune" in docs/frontend-protocol.md), turned into Configs with stable readable
// names, and the signature completed with an entry for each value the configs set.
#pragma once

#include "compiler/config.h"
#include "compiler/signature.h"
#include "contract/diagnostic.h"

#include <nlohmann/json.hpp>

#include <string>
#include <utility>
#include <vector>

namespace tta {

/// The name of a decorator config, from its values in declaration order: each kwarg as
/// KEY then its value, the options num_warps, num_stages, num_ctas and maxnreg as w, s, c and r
/// (c only when not 1), other options as KEY then value, joined by '_':
/// "BLOCK_M128_BLOCK_N64_w4_s3". Values: '-' becomes 'm', '.' 'p', other characters that are
/// not letters or digits '_'; 'tl.float16' is 'float16', a string its characters.
std::string derivedConfigName(const std::vector<std::pair<std::string, std::string>> &values);

/// Makes \p names unique in order: the second "X" becomes "X_2", the third "X_3" (skipping
/// names already taken).
void makeNamesUnique(std::vector<std::string> &names);

struct DecoratorConfigs {
  std::vector<Config> configs;          ///< named, in the decorator's (pruned) order
  std::vector<Signature> signatures;    ///< with an entry NAME=NAME for each value they set
  std::vector<std::string> warnings;    ///< one line each: prune kept all, perf_model, dropped hooks
};

/// The kernel's configs from the describe answer's "autotune" facts. Errors: a config with a
/// pre_hook (unless \p dropPreHooks), a value that is not a config value.
Expected<DecoratorConfigs> configsFromDecorator(const nlohmann::json &autotune,
                                                const std::vector<Signature> &signatures,
                                                const nlohmann::json &describe,
                                                const std::string &function, bool dropPreHooks);

} // namespace tta
