"""Device profiles: fixed values, seeded lognormal draws, device classes; their checks."""

from __future__ import annotations

import pytest
import torch
from torch.testing import assert_close

from worker.engine import ConfigError, build_config
from worker.engine.system.base import SystemContext, build_system
from worker.engine.system.profiles import Profiles, ProfilesParams


def profiles(n: int = 4, seed: int = 0, **params: object) -> Profiles:
    return Profiles(ProfilesParams(**params), SystemContext(n=n, seed=seed, root="."))


def test_fixed_gives_every_client_the_medians() -> None:
    p = profiles(distribution="fixed", compute_s_per_sample=0.01, down_mbps=8.0, up_mbps=2.0)

    assert_close(p.s_per_sample, torch.full((4,), 0.01, dtype=torch.float64))
    assert_close(p.down_bps, torch.full((4,), 1e6, dtype=torch.float64))  # 8 Mbit/s = 1 MB/s
    assert_close(p.up_bps, torch.full((4,), 2.5e5, dtype=torch.float64))


def test_lognormal_draws_are_seeded_and_spread_around_the_median() -> None:
    a, b, other = profiles(2000), profiles(2000), profiles(2000, seed=1)

    assert torch.equal(a.s_per_sample, b.s_per_sample) and torch.equal(a.up_bps, b.up_bps)
    assert not torch.equal(a.s_per_sample, other.s_per_sample)
    assert float(a.s_per_sample.median()) == pytest.approx(0.005, rel=0.1)
    assert float(a.s_per_sample.log().std()) == pytest.approx(0.6, rel=0.1)
    # one network quality per client: downlink and uplink in a fixed ratio
    assert_close(a.down_bps / a.up_bps, torch.full((2000,), 4.0, dtype=torch.float64))


def test_classes_take_their_shares() -> None:
    p = profiles(
        3000,
        distribution="classes",
        class_shares=[0.75, 0.25],
        class_compute_s_per_sample=[0.001, 0.1],
        class_down_mbps=[8.0, 8.0],
        class_up_mbps=[8.0, 0.8],
    )

    slow = p.s_per_sample == 0.1
    assert float(slow.double().mean()) == pytest.approx(0.25, abs=0.03)
    assert set(p.s_per_sample.tolist()) == {0.001, 0.1}
    assert torch.equal(p.up_bps < 1e6, slow)  # a class's values go together


@pytest.mark.parametrize(
    ("setting", "problem"),
    [
        ("system.profiles.class_up_mbps=[1,2]", "class_up_mbps: 2 values for 3 classes"),
        ("system.profiles.class_shares=[0.5,0,0.5]", "class_shares: give one positive value"),
    ],
)
def test_class_lists_are_checked(setting: str, problem: str) -> None:
    with pytest.raises(ValueError, match=problem):
        build_config({}, ["system.kind=profiles", "system.profiles.distribution=classes", setting])


@pytest.mark.parametrize(
    ("settings", "message"),
    [
        (
            ["distribution=fixed", "compute_s_per_sample=2e12"],
            "client 0 takes 2e+12 s for a training sample, outside the clock's range",
        ),
        (
            ["distribution=fixed", "down_mbps=5e-324"],  # 8e-318 bytes a second
            "client 0 takes inf s for a byte on its downlink",
        ),
        (["compute_spread=1000"], "takes inf s for a training sample"),  # e^(1000·z)
    ],
)
def test_profiles_that_take_the_clock_out_of_its_range_are_refused(
    settings: list[str], message: str
) -> None:
    config = build_config({}, ["system.kind=profiles", *(f"system.profiles.{s}" for s in settings)])

    # Before: built, and the run ended at chance accuracy with a NaN warning.
    with pytest.raises(ConfigError) as err:
        build_system(config, 8, ".")

    assert str(err.value).startswith("system.profiles: client ")
    assert message in str(err.value)
    assert str(err.value).endswith("outside the clock's range [0, 1e+12] s")
