"""A preset's published maximum stands beside FedWatch's in its reproduction report:
NIID-Bench's CIFAR-10 figures (Flower's table) in the max section, no other."""

from __future__ import annotations

from worker.presets import get_preset
from worker.reproduction.figures import Curve
from worker.reproduction.report import build, markdown


def test_niid_bench_report_puts_the_published_max_beside_fedwatchs() -> None:
    preset = get_preset("niid-bench-cifar10")
    curves = {
        "fedavg": [Curve(42, (0, 1, 2), (0.25, 0.5, 0.25))],
        "scaffold": [Curve(42, (0, 1, 2), (0.25, 0.5, 0.75))],
    }

    text = markdown(build(preset, curves, rounds=2))
    max_section = text.split("## max (%)")[1].split("## ")[0]

    assert "| fedavg | – | 50 (n=1) | – | – | 62.47 |" in max_section
    scaffold = "| scaffold | client.unit=steps, client.local_steps=790 | 75 (n=1) | – | – | 68.08 |"
    assert scaffold in max_section
    assert "| fednova | – | – | – | – | 63.89 |" in max_section
    assert "| fedprox | algorithm.fedprox.mu=0.01 | – | – | – | – |" in max_section
    time_avg = text.split("## time-average (%)")[1].split("## ")[0]
    assert "62.47" not in time_avg
