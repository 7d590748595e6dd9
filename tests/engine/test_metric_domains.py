"""The catalogue's domains and machine figures: what intervals, bands and tests read."""

from __future__ import annotations

from worker.engine import metrics


def test_domains_by_hand() -> None:
    spec = metrics.by_name()
    assert spec["test_acc"].domain == (0.0, 1.0)
    assert spec["best_test_acc"].domain == (0.0, 1.0)
    assert spec["rounds_to_target"].domain == (0.0, None)
    assert spec["wall_s"].domain == (0.0, None)
    assert spec["time_to_target_s"].domain == (0.0, None)
    assert spec["final_client_acc_var"].domain == (0.0, 0.25)  # a variance of [0, 1] values
    assert spec["final_param"].domain == (None, None)  # Example 1's x has no bound
    assert spec["round_time_s_avg"].domain == (0.0, None)  # a derived average keeps it


def test_every_bounded_unit_has_its_bound() -> None:
    for spec in metrics.catalogue():
        if spec.unit in metrics.NON_NEGATIVE_UNITS or spec.unit == "%":
            assert spec.domain[0] == 0.0, spec.name
        low, high = spec.domain
        assert low is None or high is None or low < high, spec.name


def test_machine_figures() -> None:
    machine = {s.name for s in metrics.catalogue() if s.machine}
    assert machine == {"wall_s", "startup_s", "client_updates_per_s"}


def test_a_plugin_count_is_not_negative() -> None:
    """A metric built directly (as a plug-in builds its own) gets its unit's bound too."""
    assert metrics.MetricSpec("kept", "clients kept", unit="clients").domain == (0.0, None)
    assert metrics.MetricSpec("x", "x", unit="clients", domain=(1.0, 5.0)).domain == (1.0, 5.0)
    assert metrics.MetricSpec("gain", "gain").domain == (None, None)
    share = metrics.MetricSpec("filled", "filled", unit="%", scale=100.0)
    assert share.domain == (0.0, 1.0)
    assert metrics.MetricSpec("pct", "pct", unit="%").domain == (0.0, 100.0)  # stored in %
