"""torch's CPU wheels from this machine, served to the image's build over 127.0.0.1.

The Dockerfile's default TORCH_INDEX (PyTorch's CPU index) is what a user builds with; a
machine that holds a CPU wheel of torch for the image's Python in pip's configured folders
(find-links, file:// indexes) and the torchvision of the same release serves them instead,
pinned (PIP_CONSTRAINT), so the build takes them whatever PyPI's newest torch is.

PyPI holds no CPU build of torchvision: where the local one is PyPI's (CUDA) build, the
image's `import torchvision` fails ("operator torchvision::nms does not exist"), so runs
on vision datasets fail in that image; the test's runs (Example 1, CA-Fed's synthetic
data) do not import it. PyTorch's CPU index, the Dockerfile's default, has both."""

from __future__ import annotations

import functools
import re
import subprocess
import sys
import tempfile
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import urlparse

PORT = 38211
# the image's Python (PYTHON_IMAGE's default and its stand-in)
PYTHON_TAG = "cp311"
WHEEL = rf"-{PYTHON_TAG}-{PYTHON_TAG}-manylinux\S*_x86_64\.whl"
TORCH = re.compile(rf"torch-(2)\.(\d+)\.(\d+)\+cpu{WHEEL}")


def pip_folders() -> list[Path]:
    """The local folders pip is configured to read wheels from."""
    listed = subprocess.run(
        [sys.executable, "-m", "pip", "config", "list"], capture_output=True, text=True, check=False
    ).stdout
    folders: list[Path] = []
    for line in listed.splitlines():
        key, _, value = line.partition("=")
        if key.endswith((".find-links", ".extra-index-url", ".index-url")):
            for location in value.strip("'\"").split():
                path = Path(urlparse(location).path if "://" in location else location)
                folders += [path, path.parent / "files"] if path.name == "simple" else [path]
    return [folder for folder in folders if folder.is_dir()]


def cpu_wheels() -> tuple[Path, Path] | None:
    """The newest local CPU wheel of torch and a torchvision wheel of its release."""
    files = [file for folder in pip_folders() for file in folder.glob("*.whl")]
    torches = sorted(
        (tuple(map(int, m.groups())), file) for file in files if (m := TORCH.fullmatch(file.name))
    )
    for (_, minor, _), torch in reversed(torches):
        # torchvision 0.(minor + 15) goes with torch 2.minor (0.19 with 2.4, 0.28 with 2.13)
        vision = re.compile(rf"torchvision-0\.{minor + 15}\.\d+{WHEEL}")
        matching = sorted(file for file in files if vision.fullmatch(file.name))
        if matching:
            return torch, matching[-1]
    return None


class QuietHandler(SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: object) -> None:
        pass


def listen(handler: Callable[..., SimpleHTTPRequestHandler]) -> ThreadingHTTPServer:
    """On PORT where it is free: the index's address is a build argument, and the build
    cache holds only for the same value."""
    try:
        return ThreadingHTTPServer(("127.0.0.1", PORT), handler)
    except OSError:
        return ThreadingHTTPServer(("127.0.0.1", 0), handler)


@contextmanager
def torch_wheels() -> Iterator[dict[str, str]]:
    """The variables of the build that takes the local wheels; none where there are none."""
    wheels = cpu_wheels()
    if wheels is None:
        yield {}
        return
    with tempfile.TemporaryDirectory(prefix="fedwatch-wheels-") as folder:
        root = Path(folder)
        pins = []
        for wheel in wheels:
            project = wheel.name.split("-")[0]
            version = wheel.name.split("-")[1]
            (root / project).mkdir()
            (root / project / wheel.name).symlink_to(wheel)
            link = f'<a href="{wheel.name.replace("+", "%2B")}">{wheel.name}</a>'
            page = f"<!DOCTYPE html><html><body>{link}</body></html>"
            (root / project / "index.html").write_text(page)
            pins.append(f"{project}=={version}")
        (root / "constraints.txt").write_text("\n".join(pins) + "\n")
        handler = functools.partial(QuietHandler, directory=str(root))
        server = listen(handler)
        thread = threading.Thread(target=server.serve_forever, daemon=True)
        thread.start()
        base = f"http://127.0.0.1:{server.server_address[1]}"
        try:
            yield {
                "FEDWATCH_TORCH_INDEX": f"{base}/",
                "FEDWATCH_PIP_CONSTRAINT": f"{base}/constraints.txt",
            }
        finally:
            server.shutdown()
            server.server_close()
