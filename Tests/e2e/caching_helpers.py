"""What the page-caching tests share (test_page_caching.py, test_page_worker.py): a copy of
Public/ served by its own server behind a proxy that logs the requests (http_request_log.py), the
static files a browser asked for, and a new build of the files the page names."""

from __future__ import annotations

import os
import re
import shutil
from pathlib import Path

import pytest

from http_request_log import HTTPRequestLog
from page_fixtures import ScrollcastPage
from server_helpers import PUBLIC, RunningServer

VERSIONED = re.compile(r"^/(?P<name>[^?]+)\?v=[0-9a-f]{16}$")
# What the page asks the server on every load: the page, the room's socket, the scene list.
DYNAMIC = {"/ws", "/scenes"}


def files_asked(log: HTTPRequestLog, versioned: bool = True) -> list[str]:
    """The static files the browser asked for since the log was cleared (names without versions);
    the page is ''. `versioned`: every file but the page must be asked for by its version."""
    names = []
    for _, target in log.requests():
        path = target.split("?", 1)[0]
        if path in DYNAMIC:
            continue
        match = VERSIONED.match(target)
        assert match or path == "/" or not versioned, f"{target}: every file but the page is asked for by its version"
        names.append(match["name"] if match else path.removeprefix("/"))
    return names


class Site:
    """A copy of Public/ (`public`: the test changes it), its server, and a proxy in front of it
    logging the requests (`log`; `on_request` as HTTPRequestLog's)."""

    def __init__(self, tmp_path: Path, without_bundle: bool = False, on_request=None):
        self.public = tmp_path / "public"
        shutil.copytree(PUBLIC, self.public, ignore=shutil.ignore_patterns("bundle") if without_bundle else None)
        self.server = RunningServer("--allowed-origins", "*", public=self.public)   # the page comes with the proxy's origin
        self.log = HTTPRequestLog(self.server.port, on_request=on_request)

    def open(self, page, room: str, artifacts) -> ScrollcastPage:
        """The page of `room` through the proxy, with its replica, its console kept by `artifacts`."""
        artifacts.watch(page)
        return ScrollcastPage(page, self.log.base_url, room).open("&replica=on")

    def close(self):
        self.log.close()
        self.server.stop()


@pytest.fixture
def site(tmp_path):
    """A factory of one Site (its arguments but `tmp_path`), closed at the end of the test."""
    made: list[Site] = []

    def make(**kw) -> Site:
        made.append(Site(tmp_path, **kw))
        make.started.append(made[-1].server)
        return made[-1]

    make.started = []   # read by conftest's report of a failed test
    yield make
    for one in made:
        one.close()


def loaded(page, sc):
    """Waits until `sc` (a ScrollcastPage) runs its replica with its images in."""
    sc.wait("s => s.replica.running && s.images.ready")
    assert sc.state("[s.images.background, ...s.images.layers]") == ["loaded"] * 4, "versioned images load"


def wasm_with_custom_section(wasm: bytes, note: bytes) -> bytes:
    """The same module with a custom section (ignored by engines) added: new bytes, same code."""
    name = b"scrollcast-test"
    payload = bytes([len(name)]) + name + note
    assert len(payload) < 128
    return wasm + b"\x00" + bytes([len(payload)]) + payload


def new_bundle(public: Path, marker: str) -> None:
    """A new build of the page's bundle: the same code, and `globalThis.scrollcastTestBuild = marker`.
    Written beside and renamed into place, as a build does: the server, serving the bundle
    meanwhile, never reads it half written (an empty bundle runs without an error and starts nothing)."""
    bundle = public / "bundle" / "page.js"
    text = re.sub(r'\nglobalThis\.scrollcastTestBuild = "[^"]*";\n$', "", bundle.read_text())
    written = bundle.with_name("page.js.new")
    written.write_text(text + f'\nglobalThis.scrollcastTestBuild = "{marker}";\n')
    os.replace(written, bundle)
