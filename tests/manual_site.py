"""The manual built for a test: `mkdocs build --strict` of the repository's manual."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def build_manual(site: Path) -> Path:
    """`mkdocs build --strict` of the repository's manual into `site`."""
    done = subprocess.run(
        [str(Path(sys.executable).parent / "mkdocs"), "build", "--strict", "--quiet",
         "--site-dir", str(site)],
        cwd=REPO, capture_output=True, text=True,
        env={**os.environ, "NO_MKDOCS_2_WARNING": "1"},
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    return site
