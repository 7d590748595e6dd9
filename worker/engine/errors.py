"""Errors caused by the run's input (never by a bug): reported to users as such."""

from __future__ import annotations


class ConfigError(ValueError):
    """A config that cannot run; the message starts with the offending field's path."""


class DatasetMissing(ConfigError, FileNotFoundError):
    """Dataset files absent (or unreadable) under the data root, and not to be downloaded.
    `fact` says what is wrong; the message adds what to do about it, naming a download
    only where one is allowed (`advice`: a server that downloads nothing says so, the
    command line may). `missing`: the files expected and absent, where it can list them
    (a pattern for a folder of files, `femnist/data/train/*.json`)."""

    def __init__(self, fact: str, missing: tuple[str, ...] = ()) -> None:
        super().__init__(f"{fact}; {remedy(True)}")
        self.fact = fact
        self.missing = missing  # the expected files absent, relative to the data root

    def advice(self, download_allowed: bool) -> str:
        return f"{self.fact}; {remedy(download_allowed)}"


def remedy(download_allowed: bool) -> str:
    """What makes a dataset read from the data root available, in a clause."""
    ways = ["place the files there (torchvision's layout)"]
    if download_allowed:
        ways.append("set data.download=true where the network is reachable")
    ways.append("set data.dataset=digits to run offline on scikit-learn's 8×8 digits")
    return ", ".join(ways[:-1]) + ", or " + ways[-1]
