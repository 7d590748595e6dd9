"""Each combination that would break a mechanism's guarantee is refused, naming the field
to change and why; those that keep it are accepted."""

import pytest

from worker.engine import ConfigError, build_config
from worker.engine.privacy import guarantee

CENTRAL = ["privacy.kind=central", "algorithm.weights=uniform"]
LOCAL = ["privacy.kind=local"]


@pytest.mark.parametrize(
    ("assignments", "message"),
    [
        (
            [*CENTRAL, f"algorithm.name={name}"],
            f"algorithm.name: {name} {guarantee.MEMORY}; refused under privacy.kind=central",
        )
        for name in ("mifa", "fedlaavg", "fedvarp", "fedar")
    ]
    + [
        (
            [*kind, "algorithm.name=scaffold"],
            f"algorithm.name: scaffold {guarantee.CONTROL_VARIATES}",
        )
        for kind in (CENTRAL, LOCAL)
    ]
    + [
        ([*LOCAL, "algorithm.name=cafed"], f"algorithm.name: cafed {guarantee.LOSS_REPORTS}"),
        ([*LOCAL, "algorithm.name=sgd"], f"algorithm.name: sgd {guarantee.CENTRAL_TRAINING}"),
        ([*CENTRAL, "algorithm.name=unbiased"], f"algorithm.name: unbiased {guarantee.WEIGHTED}"),
        ([*CENTRAL, "algorithm.name=fednova"], f"algorithm.name: fednova {guarantee.NORMALISED}"),
        (
            [*CENTRAL, "algorithm.fedavg.rescale_partial=true"],
            "algorithm.fedavg.rescale_partial: scales a clipped partial update by C/s",
        ),
        (
            ["privacy.kind=central"],
            "algorithm.weights: central DP needs uniform weights",
        ),
        (
            [*CENTRAL, "privacy.central.clipping=adaptive"],
            "privacy.central.count_stddev: adaptive clipping spends part of σ = 1 on the "
            "count, which needs 2σ_b > σ; σ_b = 0.5",
        ),
    ],
)
def test_a_combination_that_breaks_the_guarantee_is_refused(
    assignments: list[str], message: str
) -> None:
    with pytest.raises(ConfigError) as err:
        build_config({}, assignments)

    assert message in str(err.value)


@pytest.mark.parametrize(
    "assignments",
    [
        [*CENTRAL, "algorithm.name=fedavg"],
        [*CENTRAL, "algorithm.name=fedprox"],
        [*CENTRAL, "algorithm.name=fedadam", "algorithm.fedavg.rescale_partial=true"],
        [*CENTRAL, "privacy.central.clipping=adaptive", "privacy.central.count_stddev=1"],
        # under local DP a stored update is a noised release: reusing it is post-processing
        *(
            [*LOCAL, f"algorithm.name={name}"]
            for name in ("mifa", "fedlaavg", "fedar", "fedavg_is")
        ),
        ["privacy.kind=none", "algorithm.name=scaffold"],
    ],
)
def test_a_combination_that_keeps_it_is_accepted(assignments: list[str]) -> None:
    assert build_config({}, assignments).privacy.kind == assignments[0].split("=")[1]
