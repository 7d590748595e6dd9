"""A sink that shows a run's progress on stderr and keeps its records."""

from __future__ import annotations

from typing import Any

from tqdm import tqdm

from worker.engine import ListSink, RoundRecord


class ProgressSink(ListSink):
    def __init__(self, total: int, label: str, position: int = 0) -> None:
        super().__init__()
        self.bar = tqdm(total=total, desc=label, unit="round", position=position, leave=True)

    def on_round(self, record: RoundRecord) -> None:
        super().on_round(record)
        m = record.metrics
        shown: dict[str, Any] = {}
        if "test_acc" in m:
            shown["acc"] = f"{m['test_acc']:.3f}"
        if "param" in m:
            shown["param"] = f"{m['param']:+.4f}"
        if shown:
            self.bar.set_postfix(shown, refresh=False)
        self.bar.update(1)

    def close(self) -> None:
        self.bar.close()
