"""What the page-caching tests share (test_page_caching.py, test_page_worker.py): a copy of
Public/ served by its own server behind a proxy that logs the requests (http_request_log.py), the
static files a browser asked for, and a new build of the files the page names."""

from __future__ import annotations

import os
import re
import shutil
from pathlib import Path

from http_request_log import HTTPRequestLog
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


def site(tmp_path, without_bundle: bool = False, on_request=None) -> tuple[Path, RunningServer, HTTPRequestLog]:
    """A copy of Public/ (the test changes it), its server and a proxy logging requests to it
    (`on_request`: HTTPRequestLog's)."""
    public = tmp_path / "public"
    shutil.copytree(PUBLIC, public, ignore=shutil.ignore_patterns("bundle") if without_bundle else None)
    server = RunningServer("--allowed-origins", "*", public=public)   # the page comes with the proxy's origin
    return public, server, HTTPRequestLog(server.port, on_request=on_request)


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
