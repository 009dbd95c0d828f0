"""The page's service worker (Public/sw.js; docs/design.md, "Static files"): once it is in place, a
reload's page comes from the worker's copy at once, its one request for the page being the
worker's revalidation beside it; a new build is still shown after at most one automatic reload,
never a loop, also when the server answers a newer page every time it is asked; with the server
gone, the page still loads and says so. Requests are counted at a proxy between Chromium and a
server of the test's own (caching_helpers.py).

Each test's browser context is its own (pytest-playwright's `page`, or `browser.new_context()`),
and a worker and its copy live in their context's storage: the last test shows that a worker in
one context controls nothing in another, so no test sees another's worker."""

from __future__ import annotations

import pytest

from caching_helpers import files_asked, loaded, new_bundle, site  # noqa: F401  (a fixture)
from page_fixtures import (  # noqa: F401  (pytest fixtures are used by name)
    ScrollcastPage, artifacts, browser_type_launch_args, page_server, room,
)

# The worker active, and its copy of the page kept (it keeps it before it activates).
WORKER_READY = """async () => { const r = await navigator.serviceWorker.ready;
    return r.active !== null && (await caches.has("scrollcast-page-1")) && (await (await caches.open("scrollcast-page-1")).match("/")) !== undefined; }"""
# What index.html's script learned from the worker: null until the worker answers.
FOUND = "window.scrollcastEarly.worker.found"


def navigations(page) -> list[str]:
    """The page's main-frame navigations from now on, as they commit."""
    seen: list[str] = []
    page.on("framenavigated", lambda frame: seen.append(frame.url) if frame == page.main_frame else None)
    return seen


def worker_in_place(page, sc: ScrollcastPage):
    loaded(page, sc)
    assert page.evaluate("window.scrollcastEarly.worker.controlled") is False, "a first load is the network's"
    page.wait_for_function(WORKER_READY, polling=100, timeout=15000)


def test_a_reload_is_answered_by_the_worker_and_a_new_build_comes_with_one_reload(page, room, artifacts, site):
    s = site()
    sc = s.open(page, room, artifacts)
    worker_in_place(page, sc)

    # A reload: the worker answers the navigation; the one request for the page is its
    # revalidation, answered 304, and no other file is asked for.
    s.log.clear()
    response = page.reload()
    loaded(page, sc)
    assert response.from_service_worker, "the page came from the worker's copy"
    page.wait_for_function(f"{FOUND} !== null")
    assert page.evaluate("window.scrollcastEarly.worker") == {"controlled": True, "found": "same", "reloading": False}
    assert files_asked(s.log) == [""], s.log.requests()
    assert [r for r in s.log.requests() if r[1] == "/"] == [("GET", "/")]

    # A new build of the bundle: the reload shows the kept page (the old build) at once, the
    # worker's revalidation finds the new page and keeps it, and the page reloads once, onto
    # it. That page's own check finds it current: no third load.
    new_bundle(s.public, "second")
    seen = navigations(page)
    s.log.clear()
    page.reload(wait_until="commit")   # the load it starts may be cut short by the automatic reload
    page.wait_for_function("window.scrollcastTestBuild === 'second'", timeout=15000)
    loaded(page, sc)
    page.wait_for_function(f"{FOUND} !== null")
    assert page.evaluate("window.scrollcastEarly.worker") == {"controlled": True, "found": "same", "reloading": False}
    assert len(seen) == 2, f"the reload and one more: {seen}"
    assert sorted(files_asked(s.log)) == ["", "", "bundle/page.js"], s.log.requests()

    # And the next reload runs the new build straight from the worker's copy.
    seen.clear()
    response = page.reload()
    loaded(page, sc)
    page.wait_for_function(f"{FOUND} !== null")
    assert response.from_service_worker and page.evaluate("window.scrollcastTestBuild") == "second"
    assert page.evaluate(FOUND) == "same" and len(seen) == 1


def test_a_server_with_a_newer_page_every_time_costs_one_reload_not_a_loop(page, room, artifacts, site):
    """The known-bad case for the loop guard: every request for the page finds a new build (the
    proxy writes one before it lets the request through), so every check finds a newer page. The
    page reloads once for the user's reload, and the page that reload brings stays."""
    builds = []

    def rebuild(method: str, target: str):
        if target == "/":
            builds.append(target)
            new_bundle(s.public, f"build-{len(builds)}")   # `s` is set before the page asks for anything

    s = site(on_request=rebuild)
    sc = s.open(page, room, artifacts)
    worker_in_place(page, sc)
    seen = navigations(page)
    asked = len(builds)
    page.reload(wait_until="commit")   # the load it starts may be cut short by the automatic reload
    # The automatic reload's page asked too, found a newer page again, and stayed.
    page.wait_for_function(f"window.scrollcastEarly.worker.reloading === false && {FOUND} === 'newer'", timeout=15000)
    loaded(page, sc)
    assert len(seen) == 2, f"the reload and one more: {seen}"
    assert len(builds) - asked == 2, "each load's page revalidated once"
    # It runs a build newer than the worker's copy the user's reload showed.
    assert int(page.evaluate("window.scrollcastTestBuild").removeprefix("build-")) > asked
    assert page.evaluate("window.scrollcast.state.joined")
    # Another user reload: again at most one more, not a loop.
    seen.clear()
    page.reload(wait_until="commit")
    page.wait_for_function(f"window.scrollcastEarly.worker.reloading === false && {FOUND} === 'newer'", timeout=15000)
    loaded(page, sc)
    assert len(seen) == 2, seen


def test_with_the_server_gone_a_reload_still_shows_the_page_and_says_so(page, room, artifacts, site):
    """The kept page loads without the server (the worker's revalidation fails and changes
    nothing) and says the connection is lost, where without a worker the browser would show its
    own error page."""
    s = site()
    sc = s.open(page, room, artifacts)
    worker_in_place(page, sc)
    s.server.stop()
    response = page.reload()
    assert response.from_service_worker
    page.wait_for_function(f"{FOUND} === 'same'")
    page.wait_for_function("document.getElementById('banner').textContent.startsWith('Disconnected')")
    assert page.evaluate("window.scrollcast.state.joined") is False


@pytest.mark.browser_context_args(service_workers="block")
def test_without_a_worker_the_page_asks_the_server_as_before(page, room, artifacts, site):
    """A browser with no worker for the page (here blocked; over plain http from another address
    than the machine's own there is none): the page registers nothing and a reload waits for the
    page's 304, as test_page_caching.py counts."""
    s = site()
    sc = s.open(page, room, artifacts)
    loaded(page, sc)
    response = page.reload()
    loaded(page, sc)
    assert not response.from_service_worker and response.status in (200, 304)
    assert page.evaluate("window.scrollcastEarly.worker") == {"controlled": False, "found": None, "reloading": False}


def test_a_worker_controls_nothing_in_another_browser_context(page, browser, page_server, room, artifacts):
    artifacts.watch(page)
    sc = ScrollcastPage(page, page_server.base_url, room).open()
    page.wait_for_function(WORKER_READY, polling=100, timeout=15000)
    page.reload()
    page.wait_for_function("navigator.serviceWorker.controller !== null")
    other = browser.new_context()
    try:
        fresh = other.new_page()
        fresh.goto(f"{page_server.base_url}/styles.css")   # a document of the same origin
        assert fresh.evaluate("async () => (await navigator.serviceWorker.getRegistrations()).length") == 0
        assert fresh.evaluate("caches.keys()") == []
        response = fresh.goto(f"{page_server.base_url}/?room={room}&replica=off")
        assert not response.from_service_worker
        assert fresh.evaluate("window.scrollcastEarly.worker.controlled") is False
    finally:
        other.close()
    assert sc.page.evaluate("navigator.serviceWorker.controller !== null")
