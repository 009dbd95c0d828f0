"""The WebAssembly engine stays out of the page unless asked for: without `?replica=on` the
module is never fetched; with it the page loads the engine (window.scrollcastReplicaEngine) and
still draws server frames as before (docs/wasm.md)."""

from page_fixtures import ScrollcastPage, artifacts, browser_type_launch_args, page_server, room  # noqa: F401


def wasm_requests(page) -> list[str]:
    seen: list[str] = []
    page.on("request", lambda request: seen.append(request.url) if request.url.endswith(".wasm") else None)
    return seen


def test_without_the_flag_the_page_never_fetches_the_engine(page, page_server, room, artifacts):
    artifacts.watch(page)
    fetched = wasm_requests(page)
    sc = ScrollcastPage(page, page_server.base_url, room).open()
    sc.wait_idle()
    assert fetched == []
    assert page.evaluate("window.scrollcastReplicaEngine === undefined")


def test_with_the_flag_the_page_loads_the_engine_and_draws_server_frames(page, page_server, room, artifacts):
    artifacts.watch(page)
    fetched = wasm_requests(page)
    sc = ScrollcastPage(page, page_server.base_url, room).open("&replica=on")
    page.wait_for_function("window.scrollcastReplicaEngine !== undefined")
    assert [url.rsplit("/", 1)[1] for url in fetched] == ["scrollcast-engine.wasm"]
    # The loaded engine works: the seed table's `end` key from the top ends past its first row.
    offset = page.evaluate("""() => {
        const engine = window.scrollcastReplicaEngine;
        engine.create("seed-table");
        engine.apply({kind: 6, a: 7}, 1, 0, "console");
        return engine.frame(5000, 1, 0).contentOffset;
    }""")
    assert offset > 0
    # ...and the page itself still joined and draws the server's frames.
    assert sc.state("s.joined && s.framesDrawn >= 1 && s.lastFrame !== null")
