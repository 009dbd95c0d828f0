"""Durable rooms when the file stops taking writes: the database file and its write-ahead log are
made immutable (`chattr +i`, which stops root too, as a read-only disk would) while the server
runs. Row moves are then refused with `unavailable` — never applied and lost — scrolling goes
on, the server says so in its log and on /metrics, and once the file takes writes again moves
work and are kept."""

from __future__ import annotations


from page_fixtures import (  # noqa: F401  (pytest fixtures are used by name)
    ScrollcastPage, artifacts, browser_type_launch_args,
)
from server_helpers import ClientClock, Viewer, metric, move_row, order, run, until_metric, long_press_move

WRITABLE = "scrollcast_store_writable"
REFUSALS = "scrollcast_store_unavailable_refusals_total"


def test_moves_are_refused_unavailable_while_the_file_is_read_only_and_work_again_after(
        server_factory, tmp_path, room_name, immutable_files):
    data = tmp_path / "rooms.sqlite"
    server = server_factory(data=data)
    # The shared-memory index (-shm) is left alone: SQLite maps it into memory, and a write to
    # a mapped page of an immutable file kills the process with SIGBUS, which is not what a
    # read-only disk does to a server that has the file open.
    files = (data, tmp_path / "rooms.sqlite-wal")

    async def scenario():
        clock = ClientClock()
        driver = await Viewer.join(server.ws_url, room_name)
        watcher = await Viewer.join(server.ws_url, room_name)
        _, _, snapshot = await driver.wait_type("snapshot")
        await watcher.wait_type("snapshot")
        rows = [r for r in snapshot["frame"]["rows"] if 300 < r["y"] and r["y"] + r["h"] < snapshot["scene"]["viewport"]["height"] - 250]
        y0, y1 = rows[0]["y"] + rows[0]["h"] / 2, rows[3]["y"] + rows[3]["h"] / 2
        await long_press_move(driver, clock, y0, y1)
        _, _, first = await watcher.wait_type("rowMoved")
        assert first["version"] == 1
        assert metric(server, WRITABLE) == 1

        immutable_files.freeze(*files)
        # The next write fails (the log of this scroll), and the server notices.
        wheel = await driver.input("wheel", clock.now(), dx=0, dy=120, mode="pixel")
        await watcher.wait_type("frame", where=lambda f: (f["input"] or {}).get("id") == wheel)
        await until_metric(server, WRITABLE, lambda v: v == 0)

        # A long press is refused before it lifts anything.
        began, _ = await long_press_move(driver, clock, y0, y1)
        _, _, refused = await driver.wait_type("refused", where=lambda r: r["input"] == began)
        assert refused["code"] == "unavailable"
        assert "scrolling still works" in refused["reason"]
        # A row lifted by holding the pointer (as a page does) is put back at its drop.
        _, up = await move_row(driver, snapshot, clock=clock)
        index, _, refused_drop = await driver.wait_type("refused", where=lambda r: r["input"] == up)
        assert refused_drop["code"] == "unavailable"
        await driver.wait_type("frame", start=index, where=lambda f: f["lifted"] is None and not f["animating"])

        # Scrolling goes on: frames for a new scroll, the content moving.
        before = [m for _, m in watcher.received if m.get("type") == "frame"][-1]["offset"]
        wheel = await driver.input("wheel", clock.now(), dx=0, dy=200, mode="pixel")
        index, _, _ = await watcher.wait_type("frame", where=lambda f: (f["input"] or {}).get("id") == wheel)
        _, _, at_rest = await watcher.wait_type("frame", start=index, where=lambda f: not f["animating"])
        assert at_rest["offset"] > before, "the scroll moved the content"

        assert not [m for _, m in watcher.received if m.get("type") == "rowMoved" and m["version"] > 1], \
            "no move was announced while the file could not keep it"
        assert metric(server, REFUSALS) >= 2
        assert any("room store cannot write" in line for line in server.stderr_lines), server.stderr_lines[-5:]

        # The file takes writes again: within the store's retry interval it says so, and moves work.
        immutable_files.thaw(*files)
        await until_metric(server, WRITABLE, lambda v: v == 1)
        assert any("room store writes again" in line for line in server.stderr_lines)
        began, ended = await long_press_move(driver, clock, y0, y1)
        _, _, moved = await watcher.wait_type("rowMoved", where=lambda m: m["version"] > 1)
        assert moved["version"] == 2, "the refused moves took no version"
        assert not [m for _, m in driver.received if m.get("type") == "refused" and m["input"] in (began, ended)]
        final = await Viewer.join(server.ws_url, room_name)
        _, _, final_snapshot = await final.wait_type("snapshot")
        for v in (driver, watcher, final):
            await v.close()
        return order(final_snapshot)

    final_order = run(scenario())
    assert server.stop() == 0
    server.start()

    async def after_restart():
        viewer = await Viewer.join(server.ws_url, room_name)
        _, _, snapshot = await viewer.wait_type("snapshot")
        await viewer.close()
        return order(snapshot)

    assert run(after_restart()) == final_order, "the move made after the recovery was kept"


def test_the_page_says_moving_rows_is_paused_and_puts_the_row_back(
        browser, server_factory, tmp_path, room_name, immutable_files, artifacts):
    data = tmp_path / "rooms.sqlite"
    server = server_factory(data=data)
    context = browser.new_context()
    sc = ScrollcastPage(artifacts.watch(context.new_page(), "driver"), server.base_url, room_name).open()
    sc.wait_idle()
    order_before = sc.state("s.order")

    immutable_files.freeze(data, tmp_path / "rooms.sqlite-wal")
    # A scroll's log is the write that fails; then the server refuses moves.
    sc.page.mouse.move(*sc.client_point(200, 400))
    sc.page.mouse.wheel(0, 60)
    run(until_metric(server, WRITABLE, lambda v: v == 0))
    sc.wait_idle()

    frame = sc.frame()
    insets = sc.insets()
    row = [r for r in frame["rows"] if r["y"] > insets["top"] + 250 and r["y"] + r["h"] < 600][0]
    x, y = 200, row["y"] + row["h"] / 2
    page = sc.page
    page.mouse.move(*sc.client_point(x, y))
    page.mouse.down()
    page.wait_for_timeout(700)  # the gesture itself: a row lifts after 0.5 s held
    sc.wait("s => s.lastFrame.lifted !== null")
    page.mouse.move(*sc.client_point(x, y + 2.6 * row["h"]), steps=12)
    page.mouse.up()

    sc.wait("s => s.lastRefused && s.lastRefused.code === 'unavailable'")
    toast = page.locator("#toast")
    assert toast.is_visible()
    assert "Moving rows is paused" in toast.inner_text() and "Scrolling still works" in toast.inner_text()
    artifacts.screenshot(page, "unavailable-toast")
    sc.wait("s => !s.lastFrame.lifted && !s.lastFrame.animating")
    assert sc.state("s.order") == order_before and sc.state("s.rowMoves") == 0
    drawn = [r["id"] for r in sc.frame()["rows"] if r["s"] == row["s"]]
    assert row["id"] in drawn and drawn == [i for i in order_before[row["s"]] if i in drawn], "drawn in the old order"
    context.close()
