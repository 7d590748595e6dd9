"""A tune optimises a summary value read on the validation split, in its catalogue
direction; a test-set value is refused."""

from __future__ import annotations

import pytest

from worker.engine.errors import ConfigError
from worker.tune.objective import objective_of, validation_objectives


def test_validation_values_and_their_directions() -> None:
    assert validation_objectives() == {"final_val_acc": "val_acc", "final_val_loss": "val_loss"}
    assert objective_of("final_val_acc").direction == "maximize"
    assert objective_of("final_val_loss").direction == "minimize"
    assert objective_of("final_val_loss").round_metric == "val_loss"


@pytest.mark.parametrize(
    ("name", "why"),
    [("final_test_acc", "is not read on the validation split"), ("nonsense", "is unknown")],
)
def test_a_test_set_or_unknown_objective_is_refused(name: str, why: str) -> None:
    with pytest.raises(ConfigError, match=f"objective: '{name}' {why}"):
        objective_of(name)
