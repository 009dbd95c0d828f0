"""The page's cache policy (docs/design.md, "Static files"), counted at a proxy between Chromium
and the server: index.html names every file by its content version, so a reload asks the server
for the page alone (one round trip), and a file whose content changed is fetched again at once,
the rest still taken from the browser's cache. These pages run without their service worker
(blocked), as over plain http from another address than the machine's own; with it, a reload
does not wait for the page either (test_page_worker.py)."""

from __future__ import annotations

import re
import time

import pytest

from caching_helpers import files_asked, loaded, new_bundle, site, wasm_with_custom_section  # noqa: F401  (site: a fixture)
from page_fixtures import (  # noqa: F401  (pytest fixtures are used by name)
    artifacts, browser_type_launch_args, room,
)
from server_helpers import PUBLIC

# The page's contexts (pytest-playwright's `page`) with no service worker.
pytestmark = pytest.mark.browser_context_args(service_workers="block")


def test_a_reload_asks_only_for_the_page_and_a_new_build_is_fetched_at_once(page, room, artifacts, site):
    s = site()
    sc = s.open(page, room, artifacts)
    loaded(page, sc)
    first = files_asked(s.log)
    expected = {"", "styles.css", "bundle/page.js", "js/upload.js", "wasm/scrollcast-engine.wasm",
                "images/background.svg", "images/header-sky.svg", "images/header-hills.svg", "images/header-front.svg"}
    assert sorted(first) == sorted(expected), "each file once, by its version"

    # A reload: the page is asked about (the log sees a revalidation), nothing else is.
    s.log.clear()
    page.reload()
    loaded(page, sc)
    assert files_asked(s.log) == [""], s.log.requests()

    # A new build of the bundle, the module and one image: those three are fetched again at
    # once, under their new versions, and the page runs the new bundle.
    new_bundle(s.public, "second")
    wasm = s.public / "wasm" / "scrollcast-engine.wasm"
    wasm.write_bytes(wasm_with_custom_section(wasm.read_bytes(), b"second build"))
    image = s.public / "images" / "background.svg"
    image.write_text(image.read_text() + "\n<!-- second build -->\n")
    s.log.clear()
    page.reload()
    loaded(page, sc)
    assert sorted(files_asked(s.log)) == sorted(["", "bundle/page.js", "wasm/scrollcast-engine.wasm", "images/background.svg"])
    assert page.evaluate("globalThis.scrollcastTestBuild") == "second"


def test_files_named_without_a_version_are_asked_about_on_every_reload(page, room, artifacts, site):
    """The known-bad case the count must see: without the bundle the page imports its modules by
    their plain names, which no page versions, so a reload revalidates each of them."""
    s = site(without_bundle=True)
    sc = s.open(page, room, artifacts)
    loaded(page, sc)
    modules = {p.relative_to(s.public).as_posix() for p in (s.public / "js").rglob("*.js")} - {"js/upload.js"}
    s.log.clear()
    page.reload()
    loaded(page, sc)
    expected = {"", "bundle/page.js"} | modules
    # Modules the page imports on its own schedule may come after it draws: poll for them.
    deadline = time.monotonic() + 15
    while not set(files_asked(s.log, versioned=False)) >= expected and time.monotonic() < deadline:
        page.wait_for_timeout(50)
    assert set(files_asked(s.log, versioned=False)) == expected, "the page, the missing bundle and every module again"


def test_every_file_the_modules_load_themselves_is_listed_in_the_page():
    """index.html names the files its scripts fetch by name (the engine, the demo scene's images,
    the service worker), so that the server writes their versions there: one missing would be
    asked about on every load."""
    html = (PUBLIC / "index.html").read_text()
    listed = set(re.findall(r'<link rel="scrollcast-asset" href="([^"]+)">', html))
    files = {p.relative_to(PUBLIC).as_posix() for folder in ("images", "wasm") for p in (PUBLIC / folder).iterdir()}
    assert listed == files | {"sw.js"}
