#include "contract/spelling.h"

#include <algorithm>
#include <cctype>
#include <numeric>

namespace tta {

std::size_t editDistance(std::string_view a, std::string_view b) {
  // One row of the dynamic-programming table is enough.
  std::vector<std::size_t> row(b.size() + 1);
  std::iota(row.begin(), row.end(), std::size_t{0});
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diagonal = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      std::size_t above = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diagonal = above;
    }
  }
  return row[b.size()];
}

static std::string lower(std::string_view text) {
  std::string out(text);
  for (char &c : out)
    c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

std::optional<std::string> closestMatch(std::string_view word,
                                        const std::vector<std::string> &candidates) {
  // About one typo per three characters, and never a full rewrite ("x" must not suggest "n").
  const std::size_t limit = std::max<std::size_t>(1, (word.size() + 2) / 3);
  const std::string key = lower(word);
  std::optional<std::string> best;
  std::size_t bestDistance = 0, bestLengthGap = 0;
  for (const std::string &candidate : candidates) {
    if (candidate == word)
      continue;
    const std::size_t distance = editDistance(key, lower(candidate));
    // Among equally close candidates, one of similar length is the likelier intent ("u128" is
    // nearer "u16" than "u1").
    const std::size_t gap = candidate.size() > word.size() ? candidate.size() - word.size()
                                                           : word.size() - candidate.size();
    if (distance > limit || distance >= word.size())
      continue;
    if (best && (distance > bestDistance || (distance == bestDistance && gap >= bestLengthGap)))
      continue;
    best = candidate;
    bestDistance = distance;
    bestLengthGap = gap;
  }
  return best;
}

std::string joinNames(const std::vector<std::string> &names) {
  std::string out;
  for (const std::string &name : names) {
    if (!out.empty())
      out += ", ";
    out += name;
  }
  return out;
}

} // namespace tta
