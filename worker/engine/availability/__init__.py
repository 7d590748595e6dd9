"""Availability models, one file each, declared by their `@availability` decorator
(`components.builtin()` imports every module of this package); `build_availability` builds the one
a run selects."""

from __future__ import annotations

from worker.engine.availability.base import Availability, AvailabilityContext

__all__ = ["Availability", "AvailabilityContext"]
