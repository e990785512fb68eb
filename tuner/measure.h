// Timing one config the way triton.testing.do_bench does: an estimate from a few launches,
// warm-up launches for a time, then timed launches, each after an L2 flush and between two
// events on the stream; the median.
#pragma once

#include "contract/diagnostic.h"
#include "tuner/cuda_session.h"

#include <functional>

namespace tta::tune {

struct MeasureSettings {
  int repetitions = 100;              ///< timed launches at most
  double warmupMs = 25;               ///< launches before timing, for about this long
  double maxMsPerMeasurement = 200;   ///< fewer timed launches when they would take longer
};

/// The median time of \p launch in microseconds. \p launch enqueues one launch on the session's
/// stream and reports its failure.
Expected<double> measureMedianUs(CudaSession &session, const std::function<Status()> &launch,
                                 const MeasureSettings &settings);

} // namespace tta::tune
