"""The page's cache policy (docs/design.md, "Static files"), counted at a proxy between Chromium
and the server: index.html names every file by its content version, so a reload asks the server
for the page alone (one round trip), and a file whose content changed is fetched again at once,
the rest still taken from the browser's cache."""

from __future__ import annotations

import re
import shutil
import time
from pathlib import Path

from http_request_log import HTTPRequestLog
from page_fixtures import (  # noqa: F401  (pytest fixtures are used by name)
    ScrollcastPage, artifacts, browser_type_launch_args, room,
)
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


def site(tmp_path, without_bundle: bool = False) -> tuple[Path, RunningServer, HTTPRequestLog]:
    """A copy of Public/ (the test changes it), its server and a proxy logging requests to it."""
    public = tmp_path / "public"
    shutil.copytree(PUBLIC, public, ignore=shutil.ignore_patterns("bundle") if without_bundle else None)
    server = RunningServer("--allowed-origins", "*", public=public)   # the page comes with the proxy's origin
    return public, server, HTTPRequestLog(server.port)


def loaded(page, sc: ScrollcastPage):
    sc.wait("s => s.replica.running && s.images.ready")
    assert sc.state("[s.images.background, ...s.images.layers]") == ["loaded"] * 4, "versioned images load"


def wasm_with_custom_section(wasm: bytes, note: bytes) -> bytes:
    """The same module with a custom section (ignored by engines) added: new bytes, same code."""
    name = b"scrollcast-test"
    payload = bytes([len(name)]) + name + note
    assert len(payload) < 128
    return wasm + b"\x00" + bytes([len(payload)]) + payload


def test_a_reload_asks_only_for_the_page_and_a_new_build_is_fetched_at_once(page, room, artifacts, tmp_path):
    public, server, log = site(tmp_path)
    try:
        artifacts.watch(page)
        sc = ScrollcastPage(page, log.base_url, room).open("&replica=on")
        loaded(page, sc)
        first = files_asked(log)
        expected = {"", "styles.css", "bundle/page.js", "js/upload.js", "wasm/scrollcast-engine.wasm",
                    "images/background.svg", "images/header-sky.svg", "images/header-hills.svg", "images/header-front.svg"}
        assert sorted(first) == sorted(expected), "each file once, by its version"

        # A reload: the page is asked about (the log sees a revalidation), nothing else is.
        log.clear()
        page.reload()
        loaded(page, sc)
        assert files_asked(log) == [""], log.requests()

        # A new build of the bundle, the module and one image: those three are fetched again at
        # once, under their new versions, and the page runs the new bundle.
        bundle = public / "bundle" / "page.js"
        bundle.write_text(bundle.read_text() + '\nglobalThis.scrollcastTestBuild = "second";\n')
        wasm = public / "wasm" / "scrollcast-engine.wasm"
        wasm.write_bytes(wasm_with_custom_section(wasm.read_bytes(), b"second build"))
        image = public / "images" / "background.svg"
        image.write_text(image.read_text() + "\n<!-- second build -->\n")
        log.clear()
        page.reload()
        loaded(page, sc)
        assert sorted(files_asked(log)) == sorted(["", "bundle/page.js", "wasm/scrollcast-engine.wasm", "images/background.svg"])
        assert page.evaluate("globalThis.scrollcastTestBuild") == "second"
    finally:
        log.close()
        server.stop()


def test_files_named_without_a_version_are_asked_about_on_every_reload(page, room, artifacts, tmp_path):
    """The known-bad case the count must see: without the bundle the page imports its modules by
    their plain names, which no page versions, so a reload revalidates each of them."""
    public, server, log = site(tmp_path, without_bundle=True)
    try:
        artifacts.watch(page)
        sc = ScrollcastPage(page, log.base_url, room).open("&replica=on")
        loaded(page, sc)
        modules = {p.relative_to(public).as_posix() for p in (public / "js").rglob("*.js")} - {"js/upload.js"}
        log.clear()
        page.reload()
        loaded(page, sc)
        expected = {"", "bundle/page.js"} | modules
        # Modules the page imports on its own schedule may come after it draws: poll for them.
        deadline = time.monotonic() + 15
        while not set(files_asked(log, versioned=False)) >= expected and time.monotonic() < deadline:
            page.wait_for_timeout(50)
        assert set(files_asked(log, versioned=False)) == expected, "the page, the missing bundle and every module again"
    finally:
        log.close()
        server.stop()


def test_every_file_the_modules_load_themselves_is_listed_in_the_page():
    """index.html names the files the modules fetch by name (the engine, the demo scene's images),
    so that the server writes their versions there: one missing would be asked about on every load."""
    html = (PUBLIC / "index.html").read_text()
    listed = set(re.findall(r'<link rel="scrollcast-asset" href="([^"]+)">', html))
    files = {p.relative_to(PUBLIC).as_posix() for folder in ("images", "wasm") for p in (PUBLIC / folder).iterdir()}
    assert listed == files
