"""Where a run's dataset files may come from on this server.

`data.root` names a folder inside the data root (`FEDWATCH_DATA_ROOT`, the server's or,
for the CLI, this machine's: one rule, `RULE`, decides for both): a path relative to it
(the default, `data`, is the data root itself) or an absolute path that lies inside it,
which a run stores relative to it (`portable`). Other absolute paths, `..` and symbolic
links that lead outside are refused, downloads happen only where the server allows them
(`FEDWATCH_ALLOW_DOWNLOAD`), and errors show paths relative to the data root.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path, PurePath, PurePosixPath

from db.settings import Settings
from worker.engine import (
    ConfigError,
    DatasetMissing,
    RunConfig,
    current,
    inside,
    remedy,
    shown,
    unnamable,
)
from worker.engine.data.vision import EXPECTED_FILES, missing_files, needs

DEFAULT_ROOT = "data"
SHOWN_AS = "<data root>"
RULE = (
    "a folder inside the data root: a path relative to it (data = the data root itself) "
    "or an absolute path that lies inside it"
)
# How deep, and through how many folders, the data root is searched for a dataset's
# folders (`holding`): a shared root of many datasets is listed in milliseconds.
SEARCH_DEPTH = 3
SEARCH_FOLDERS = 500


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
    """The absolute folder of `data.root` under the data root of `settings`; `ConfigError`
    (naming `data.root` and the rule) where it would lead outside."""
    base = Path(settings.data_root).resolve()
    relative = relative_root(root, base)
    if relative == DEFAULT_ROOT:
        return base
    if ".." in PurePosixPath(relative).parts or "\\" in relative:
        raise ConfigError(f"data.root: {shown(root)} leads outside the data root {base}: {RULE}")
    if why := unnamable(relative):
        raise ConfigError(f"data.root: {shown(root)} {why}")
    folder = inside(base, relative)
    if folder is None:
        raise ConfigError(f"data.root: {shown(root)} leads outside the data root {base}: {RULE}")
    return folder


def relative_root(root: str, base: Path) -> str:
    """`data.root` relative to the data root `base` (resolved): a relative `root` as it
    is, an absolute one inside `base` relative to it (`DEFAULT_ROOT` for `base` itself);
    `ConfigError` for an absolute one elsewhere."""
    if not root.startswith("/"):
        return root
    if why := unnamable(root):
        raise ConfigError(f"data.root: {shown(root)} {why}")
    path = Path(os.path.normpath(root))
    for candidate in (path, path.resolve()):  # as written, then through its links
        if candidate.is_relative_to(base):
            return as_root(candidate.relative_to(base))
    raise ConfigError(f"data.root: {shown(root)} is not inside the data root {base}: {RULE}")


def as_root(relative: PurePath) -> str:
    """The `data.root` value of the folder `relative` to the data root: `DEFAULT_ROOT` for
    the data root itself, `./data` for a folder named like it."""
    if not relative.parts:
        return DEFAULT_ROOT
    text = relative.as_posix()
    return f"./{text}" if text == DEFAULT_ROOT else text


def portable(config: RunConfig, settings: Settings) -> RunConfig:
    """The config with `data.root` relative to the data root, as a run stores it (so a
    worker whose data root lies elsewhere reads the same folder); `ConfigError` as
    `root_folder`."""
    root_folder(config.data.root, settings)
    relative = relative_root(config.data.root, Path(settings.data_root).resolve())
    data = config.data.model_copy(update={"root": relative})
    return config.model_copy(update={"data": data})


def for_this_machine(config: RunConfig, settings: Settings) -> RunConfig:
    """The config with `data.root` resolved to its folder under this server's data root."""
    return reading(config, data_folder(config, settings))


def reading(config: RunConfig, folder: Path) -> RunConfig:
    """The config with `data.root` replaced by `folder` (absolute), as the engine reads it."""
    data = config.data.model_copy(update={"root": str(folder)})
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
    data_root: str  # where the data root is on this server (absolute)
    rule: str  # what `data.root` may be (`RULE`)
    holding: list[str]  # the `data.root` values under which the dataset's files are

    @property
    def present(self) -> bool:
        return not self.missing


def data_status(dataset: str, root: str, settings: Settings) -> DataStatus:
    """`dataset` under `data.root` = `root` on this server; ConfigError for a root that
    leads outside the data root."""
    allowed = settings.allow_download
    base = Path(settings.data_root).resolve()
    if dataset not in EXPECTED_FILES and own_layout(dataset) is None:
        return DataStatus(dataset, False, [], None, allowed, None, str(base), RULE, [])
    folder = root_folder(root, settings)
    missing, why = absent(dataset, folder, allowed)
    shown = relative_paths(str(folder), settings)
    advice = relative_paths(f"{dataset} is not under {shown}: {why}", settings) if missing else None
    found = holding(dataset, base)
    return DataStatus(dataset, True, missing, shown, allowed, advice, str(base), RULE, found)


def own_layout(dataset: str) -> Callable[[Path], None] | None:
    """The dataset's own check of its files' layout (a LEAF split's JSON), if it has one."""
    datasets = current().datasets
    return datasets.get(dataset).facts.layout if dataset in datasets else None


def absent(dataset: str, folder: Path, download_allowed: bool) -> tuple[list[str], str]:
    """The files `dataset` expects under `folder` that are not there, and what to do
    about it: torchvision's files, or what the dataset's own layout check finds missing."""
    if dataset in EXPECTED_FILES:
        return missing_files(dataset, str(folder)), remedy(download_allowed)
    layout = own_layout(dataset)
    try:
        if layout is not None:
            layout(folder)
    except DatasetMissing as err:
        return list(err.missing) or [err.fact], err.advice(download_allowed)
    return [], ""


def holding(dataset: str, base: Path) -> list[str]:
    """The `data.root` values (relative, `DEFAULT_ROOT` for `base` itself) of the folders
    under `base` that hold `dataset`'s files, breadth first, at most `SEARCH_DEPTH` deep;
    hidden folders (the cache) and links are not followed."""
    found: list[str] = []
    level, visited = [base], 0
    for _ in range(SEARCH_DEPTH + 1):
        below: list[Path] = []
        for folder in level:
            visited += 1
            if visited > SEARCH_FOLDERS:
                return found
            if not absent(dataset, folder, False)[0]:
                found.append(as_root(folder.relative_to(base)))
            below.extend(sorted(subfolders(folder)))
        level = below
    return found


def subfolders(folder: Path) -> list[Path]:
    """The folders directly in `folder`, neither hidden nor links (none if unreadable)."""
    try:
        entries = list(os.scandir(folder))
    except OSError:
        return []
    visible = [e for e in entries if not e.name.startswith(".")]
    return [Path(e.path) for e in visible if e.is_dir(follow_symlinks=False)]
