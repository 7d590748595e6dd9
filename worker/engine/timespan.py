"""The durations and times the simulated clock takes, in seconds (float64).

Outside this range a run's clock loses its meaning without an error: a deadline or a
period below a microsecond is shorter than a long run's times can resolve (float64
seconds resolve 10⁻⁷ s at 10⁹ s, 32 years), and a time past 10¹² s (31 700 years) can
overflow to infinity once a round multiplies it by its steps and batches. Either made
runs end at chance accuracy with a NaN warning; a value outside it is refused where it is
given (a config field, a device file), naming it.
"""

from __future__ import annotations

MIN_SECONDS = 1e-6
MAX_SECONDS = 1e12
