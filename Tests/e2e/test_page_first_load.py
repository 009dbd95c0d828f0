"""The page's first load (docs/design.md, "The first picture"): index.html opens the room's
WebSocket and starts the engine's .wasm fetch before its script loads, and the script adopts both
instead of starting their own; the script is the modules' bundle, or the modules when there is
none (what a reload asks for: test_page_caching.py)."""

from __future__ import annotations

import shutil

import pytest

from page_fixtures import (  # noqa: F401  (pytest fixtures are used by name)
    ScrollcastPage, artifacts, browser_type_launch_args, page_server, room,
)
from server_helpers import PUBLIC, RunningServer


@pytest.mark.parametrize("query", ["&replica=on", "&protocol=v1&replica=on", "&replica=off"])
def test_the_early_socket_and_wasm_fetch_are_the_pages_only_ones(page, page_server, room, artifacts, query):
    artifacts.watch(page)
    sockets, wasm = [], []
    page.on("websocket", lambda ws: sockets.append(ws.url))
    scripts = []
    page.on("request", lambda request: wasm.append(request.url) if ".wasm" in request.url else None)
    page.on("request", lambda request: scripts.append(request.url.split("?")[0]) if ".js" in request.url else None)
    sc = ScrollcastPage(page, page_server.base_url, room).open(query)
    sc.wait_idle()
    # Its URL carries the page's join (docs/protocol.md, "Joining in the upgrade").
    assert [url.split("?join=")[0] for url in sockets] == [f"ws://127.0.0.1:{page_server.port}/ws"], \
        "one socket: the early one, adopted"
    assert scripts == [f"{page_server.base_url}/bundle/page.js", f"{page_server.base_url}/js/upload.js"], \
        "the bundle, and no module of its own but the upload form's, which runs apart"
    if "replica=off" in query:
        assert wasm == []
    else:
        sc.wait("s => s.replica.running")
        assert len(wasm) == 1, wasm
    if "protocol=v1" in query:
        assert sc.state("s.protocol") == "scrollcast.v1"


def test_without_the_bundle_the_page_loads_its_modules(page, room, artifacts, tmp_path):
    public = tmp_path / "public"
    shutil.copytree(PUBLIC, public, ignore=shutil.ignore_patterns("bundle"))
    server = RunningServer(public=public)
    try:
        artifacts.watch(page)
        scripts = []
        page.on("request", lambda request: scripts.append(request.url.split("?")[0]) if ".js" in request.url else None)
        ScrollcastPage(page, server.base_url, room).open("&replica=on").wait("s => s.replica.running")
        # Every module the bundle holds (its "// ---- js/…" headers), each once, besides the bundle
        # that failed, and the upload form's script, which runs apart from the bundle.
        bundled = [line.removeprefix("// ---- ") for line in (PUBLIC / "bundle" / "page.js").read_text().splitlines()
                   if line.startswith("// ---- ")]
        assert f"{server.base_url}/js/main.js" in scripts
        assert sorted(scripts) == sorted([f"{server.base_url}/bundle/page.js", f"{server.base_url}/js/upload.js"]
                                         + [f"{server.base_url}/{m}" for m in bundled])
    finally:
        server.stop()
