#include "tuner/measure.h"

#include <algorithm>
#include <cmath>
#include <vector>

namespace tta::tune {

namespace {
constexpr int kEstimateLaunches = 5;         // do_bench's estimate
constexpr double kFloorMs = 1e-4;            // a launch the events cannot see: 0.1 us
constexpr long kMaxWarmupLaunches = 100000;  // bounds a warm-up of a near-empty kernel
} // namespace

Expected<double> measureMedianUs(CudaSession &session, const std::function<Status()> &launch,
                                 const MeasureSettings &settings) {
  // Estimate: flush + launch, as a timed repetition costs.
  if (Status s = session.record(0); !s)
    return s.takeError();
  for (int i = 0; i < kEstimateLaunches; ++i) {
    if (Status s = session.flushL2(); !s)
      return s.takeError();
    if (Status s = launch(); !s)
      return s.takeError();
  }
  if (Status s = session.record(1); !s)
    return s.takeError();
  if (Status s = session.synchronize(); !s)
    return s.takeError();
  auto total = session.elapsedMs(0, 1);
  if (!total)
    return total.takeError();
  double estimateMs = std::max(*total / kEstimateLaunches, kFloorMs);

  if (settings.warmupMs > 0) {
    long warmups = std::min(kMaxWarmupLaunches,
                            std::max(1L, std::lround(std::ceil(settings.warmupMs / estimateMs))));
    for (long i = 0; i < warmups; ++i)
      if (Status s = launch(); !s)
        return s.takeError();
  }

  long timed = std::lround(std::floor(settings.maxMsPerMeasurement / estimateMs));
  timed = std::clamp(timed, 1L, static_cast<long>(std::max(1, settings.repetitions)));
  for (long i = 0; i < timed; ++i) {
    if (Status s = session.flushL2(); !s)
      return s.takeError();
    if (Status s = session.record(2 + 2 * i); !s)
      return s.takeError();
    if (Status s = launch(); !s)
      return s.takeError();
    if (Status s = session.record(3 + 2 * i); !s)
      return s.takeError();
  }
  if (Status s = session.synchronize(); !s)
    return s.takeError();
  std::vector<double> times;
  for (long i = 0; i < timed; ++i) {
    auto ms = session.elapsedMs(2 + 2 * i, 3 + 2 * i);
    if (!ms)
      return ms.takeError();
    times.push_back(*ms);
  }
  std::sort(times.begin(), times.end());
  std::size_t n = times.size();
  double median = n % 2 ? times[n / 2] : (times[n / 2 - 1] + times[n / 2]) / 2;
  return median * 1000.0;
}

} // namespace tta::tune
