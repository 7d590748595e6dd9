"""Errors a command reports as one line with exit code 2."""

from __future__ import annotations


class CliError(Exception):
    pass
