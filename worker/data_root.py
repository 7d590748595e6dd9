"""Where a run's dataset files may come from on this server.

`data.root` names a folder inside the server's data root (`FEDWATCH_DATA_ROOT`); the
default, `data`, is the data root itself. Absolute paths, `..` and symbolic links that
lead outside are refused, downloads happen only where the server allows them
(`FEDWATCH_ALLOW_DOWNLOAD`), and errors show paths relative to the data root.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from db.settings import Settings
from worker.engine import ConfigError, RunConfig
from worker.engine.data.vision import EXPECTED_FILES, missing_files, needs
from worker.engine.errors import remedy
from worker.engine.paths import inside, shown, unnamable

DEFAULT_ROOT = "data"
SHOWN_AS = "<data root>"


def data_folder(config: RunConfig, settings: Settings) -> Path:
    """The absolute folder of the run's dataset files; `ConfigError` (naming
    `data.root` or `data.download`) if the run may not use it."""
    if config.data.download and not settings.allow_download:
        raise ConfigError(
            "data.download: this server does not download datasets "
            "(FEDWATCH_ALLOW_DOWNLOAD is off); place the files under its data root"
        )
    return root_folder(config.data.root, settings)


def root_folder(root: str, settings: Settings) -> Path:
    """The absolute folder of `data.root` under this server's data root; `ConfigError`
    (naming `data.root`) where it would lead outside."""
    base = Path(settings.data_root).resolve()
    if root == DEFAULT_ROOT:
        return base
    relative = PurePosixPath(root)
    if relative.is_absolute() or ".." in relative.parts or "\\" in root:
        raise ConfigError(
            f"data.root: {root!r} must be a folder inside the server's data root "
            "(a relative path without '..')"
        )
    if why := unnamable(root):
        raise ConfigError(f"data.root: {shown(root)} {why}")
    folder = inside(base, root)
    if folder is None:
        raise ConfigError(f"data.root: {root!r} leads outside the server's data root")
    return folder


def for_this_machine(config: RunConfig, settings: Settings) -> RunConfig:
    """The config with `data.root` resolved to its folder under this server's data root."""
    data = config.data.model_copy(update={"root": str(data_folder(config, settings))})
    return config.model_copy(update={"data": data})


def relative_paths(message: str, settings: Settings) -> str:
    """An error message with the server's data root shown as `<data root>`."""
    return message.replace(str(Path(settings.data_root).resolve()), SHOWN_AS)


def missing_data(config: RunConfig, settings: Settings) -> str | None:
    """What a run of `config` needs that this server's data root lacks, in the words of
    `needs` (None: the data is generated or bundled, its files are there, or the run may
    download them)."""
    dataset = config.data.dataset
    if dataset not in EXPECTED_FILES:
        return None
    folder = str(data_folder(config, settings))
    downloads = config.data.download and settings.allow_download
    if downloads or not missing_files(dataset, folder):
        return None
    return relative_paths(needs(dataset, folder, settings.allow_download), settings)


@dataclass(frozen=True)
class DataStatus:
    """Whether a dataset's files are on this server, for the form to say so before a run
    is started: where they must go and what works instead (only what the server allows)."""

    dataset: str
    from_root: bool  # read from the data root (else generated or bundled)
    missing: list[str]
    folder: str | None  # shown relative to the data root
    download_allowed: bool
    advice: str | None

    @property
    def present(self) -> bool:
        return not self.missing


def data_status(dataset: str, root: str, settings: Settings) -> DataStatus:
    """`dataset` under `data.root` = `root` on this server; ConfigError for a root that
    leads outside the data root."""
    allowed = settings.allow_download
    if dataset not in EXPECTED_FILES:
        return DataStatus(dataset, False, [], None, allowed, None)
    folder = root_folder(root, settings)
    missing = missing_files(dataset, str(folder))
    shown = relative_paths(str(folder), settings)
    advice = f"{dataset} is not under {shown}: {remedy(allowed)}" if missing else None
    return DataStatus(dataset, True, missing, shown, allowed, advice)
