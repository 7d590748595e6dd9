"""When the global model is evaluated: the registered schedules (`eval.schedule`), built
in here; a plug-in registers its own with `@schedule` (entry point group
`fedwatch.schedules`). The engine also evaluates after the last round."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from worker.engine.params import Params
from worker.engine.registry import schedule
from worker.engine.sections import EvalSection


@dataclass(frozen=True)
class Schedule:
    """`rule(eval, t)`: whether the model is evaluated after round t (0-based);
    `initial`: the model before round 0 is evaluated too (`initial_test_acc`)."""

    rule: Callable[[EvalSection, int], bool]
    initial: bool = False

    def evaluates(self, params: Params | None, ev: EvalSection, t: int) -> bool:
        return self.rule(ev, t)


schedule("every", label="after round 0, then every `eval.every` rounds")(
    Schedule(lambda ev, t: t == 0 or (t + 1) % ev.every == 0)
)
# CA-Fed's authors log the initial model, then after rounds t < 40 with t mod 3 = 1 and
# every t mod 10 = 9: 28 points over 150 rounds, whose mean is the paper's time-average.
schedule(
    "cafed_log", label="CA-Fed's log rounds (the initial model; t < 40, t mod 3 = 1; t mod 10 = 9)"
)(Schedule(lambda ev, t: (t < 40 and t % 3 == 1) or t % 10 == 9, initial=True))
