"""The estimate's parts: terms of memory or work, each tied to the config field that
drives it, and how they add up."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Literal

from worker.engine.allocator import TRIM_THRESHOLD

Phase = Literal["run", "loading", "training", "evaluating"]  # "run": held throughout


@dataclass(frozen=True)
class Term:
    field: str  # dotted config path of the setting that drives it
    label: str
    amount: float  # bytes, or floating-point operations
    phase: Phase = "run"
    device: bool = False  # held by the accelerator when the run uses one


@dataclass(frozen=True)
class Estimate:
    memory: tuple[Term, ...]
    work: tuple[Term, ...]
    d: int
    on_device: bool  # config.device is "cuda": device terms are not the host's

    @property
    def host_terms(self) -> tuple[Term, ...]:
        return tuple(t for t in self.memory if not (self.on_device and t.device))

    @property
    def host_bytes(self) -> int:
        return _peak(self.host_terms)

    @property
    def device_bytes(self) -> int:
        return _peak(t for t in self.memory if self.on_device and t.device)

    @property
    def flops(self) -> float:
        return sum(t.amount for t in self.work)

    def describe(self) -> str:
        """The estimate in a few lines, for people."""
        lines = [f"d = {self.d} parameters", f"memory, peak: {format_bytes(self.host_bytes)}"]
        if self.on_device:
            lines.append(f"accelerator memory, peak: {format_bytes(self.device_bytes)}")
        lines += [f"  {self._line(t, format_bytes)}" for t in largest(self.memory)]
        lines.append(f"work: {format_flops(self.flops)}")
        lines += [f"  {self._line(t, format_flops)}" for t in largest(self.work)]
        return "\n".join(lines)

    def _line(self, term: Term, unit: Callable[[float], str]) -> str:
        where = "" if term.phase == "run" else f", while {term.phase}"
        if self.on_device and term.device:
            where += ", on the accelerator"
        return f"{unit(term.amount)}: {term.label} ({term.field}{where})"


def largest(terms: Iterable[Term], n: int | None = None) -> list[Term]:
    """The `n` largest terms (all of them by default), largest first."""
    return sorted(terms, key=lambda t: -t.amount)[:n]


def _peak(terms: Iterable[Term]) -> int:
    """What is held throughout, the largest phase, and what the allocator may keep of
    the other phases (freed blocks it did not hand back, at most its trim threshold)."""
    held, phases = 0.0, dict.fromkeys(("loading", "training", "evaluating"), 0.0)
    for t in terms:
        if t.phase == "run":
            held += t.amount
        else:
            phases[t.phase] += t.amount
    largest = max(phases.values())
    return int(held + largest + min(sum(phases.values()) - largest, TRIM_THRESHOLD))


def format_bytes(n: float) -> str:
    for unit, size in (("TiB", 2**40), ("GiB", 2**30), ("MiB", 2**20)):
        if n >= size:
            return f"{n / size:.1f} {unit}"
    return f"{n / 2**10:.1f} KiB"


def format_flops(n: float) -> str:
    for unit, size in (("PFLOP", 1e15), ("TFLOP", 1e12), ("GFLOP", 1e9)):
        if n >= size:
            return f"{n / size:.1f} {unit}"
    return f"{n / 1e6:.1f} MFLOP"
