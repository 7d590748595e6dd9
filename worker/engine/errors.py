"""Errors caused by the run's input (never by a bug): reported to users as such."""

from __future__ import annotations


class ConfigError(ValueError):
    """A config that cannot run; the message starts with the offending field's path."""


class DatasetMissing(ConfigError, FileNotFoundError):
    """Dataset files absent under the data root and downloading not allowed."""
