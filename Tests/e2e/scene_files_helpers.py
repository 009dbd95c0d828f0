"""Scene files for the e2e tests (docs/scenes.md): a folder with the example scenes of scenes/
and one bad file, a server serving it (`--scenes DIR`), and `scrollcast scene check`."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from server_helpers import REPO, RunningServer

sys.path.insert(0, str(REPO / "scripts"))
import scene_images  # noqa: E402  (the repository's own image writers)

EXAMPLES = REPO / "scenes"
BAD_SCENE = "broken"
# Two errors on known lines: an unknown field and a missing image.
BAD_TEXT = """{
"headerHeight": 0,
"rowHeight": 44,
"background": {"image": "missing.png", "height": 2000},
"sections": [{"title": "S", "rows": [{"title": "a"}]}]
}
"""
BAD_ERRORS = [
    "$.rowHeight: unknown field 'rowHeight' (known here: $schema, viewport, insets, headerHeight, layers, background, sections, decelerationRate)",
    "$.background.image: image 'missing.png': no such file",
]


def log_lines(server, *needles: str, timeout: float = 10.0) -> list[str]:
    """The server's stderr lines, once one holds each of `needles` (its stderr is read by a
    thread, so lines written before start-up finished may arrive a moment later)."""
    deadline = time.monotonic() + timeout
    while True:
        lines = list(server.stderr_lines)
        if all(any(needle in line for line in lines) for needle in needles) or time.monotonic() > deadline:
            return lines
        time.sleep(0.02)


def example(name: str) -> dict:
    """An example scene's JSON, as its file says."""
    return json.loads((EXAMPLES / f"{name}.json").read_text())


# Files no scene could come from: bytes that are not JSON, and a folder named like a scene.
GARBAGE_SCENE, FOLDER_SCENE = "garbage", "folder"
GARBAGE_ERROR = "$: not valid JSON: unexpected character '0x89'"
FOLDER_ERROR = "$: cannot read the scene file: is a folder, not a file"


def make_scenes_dir(folder: Path) -> Path:
    """The example scenes and their images, `broken.json`, and two files that are no JSON."""
    folder.mkdir(parents=True, exist_ok=True)
    for path in EXAMPLES.iterdir():
        shutil.copy(path, folder / path.name)
    (folder / f"{BAD_SCENE}.json").write_text(BAD_TEXT)
    (folder / f"{GARBAGE_SCENE}.json").write_bytes((EXAMPLES / "feed-front.png").read_bytes())
    (folder / f"{FOLDER_SCENE}.json").mkdir()
    return folder


def scene_check(*files: str | Path, extra: tuple[str, ...] = ()) -> subprocess.CompletedProcess:
    binary = os.environ.get("SCROLLCAST_BIN")
    if not binary:
        pytest.fail("SCROLLCAST_BIN is not set (e.g. SCROLLCAST_BIN=.build/debug/scrollcast)")
    return subprocess.run([binary, "scene", "check", *extra, *map(str, files)], capture_output=True, text=True, timeout=60)


@pytest.fixture(scope="module")
def scenes_dir(tmp_path_factory) -> Path:
    return make_scenes_dir(tmp_path_factory.mktemp("scenes"))


@pytest.fixture(scope="module")
def scenes_server(scenes_dir):
    """A server offering the example scenes beside the built-in ones (and leaving `broken` out)."""
    server = RunningServer("--scenes", str(scenes_dir))
    yield server
    server.stop()


__all__ = ["scene_images", "example", "log_lines", "make_scenes_dir", "scene_check", "scenes_dir", "scenes_server",
           "BAD_SCENE", "BAD_TEXT", "BAD_ERRORS", "EXAMPLES", "GARBAGE_SCENE", "GARBAGE_ERROR", "FOLDER_SCENE", "FOLDER_ERROR"]
