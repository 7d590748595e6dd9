"""Where a run's dataset files may come from on this server.

`data.root` names a folder inside the server's data root (`FEDWATCH_DATA_ROOT`); the
default, `data`, is the data root itself. Absolute paths, `..` and symbolic links that
lead outside are refused, downloads happen only where the server allows them
(`FEDWATCH_ALLOW_DOWNLOAD`), and errors show paths relative to the data root.
"""

from __future__ import annotations

from pathlib import Path, PurePosixPath

from db.settings import Settings
from worker.engine import ConfigError, DatasetMissing, RunConfig
from worker.engine.data.vision import EXPECTED_FILES, needs, require_files

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
    base = Path(settings.data_root).resolve()
    root = config.data.root
    if root == DEFAULT_ROOT:
        return base
    relative = PurePosixPath(root)
    if relative.is_absolute() or ".." in relative.parts or "\\" in root:
        raise ConfigError(
            f"data.root: {root!r} must be a folder inside the server's data root "
            "(a relative path without '..')"
        )
    folder = (base / relative).resolve()
    if not folder.is_relative_to(base):
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
    try:
        require_files(dataset, folder, config.data.download and settings.allow_download)
    except DatasetMissing:
        return relative_paths(needs(dataset, folder), settings)
    return None
