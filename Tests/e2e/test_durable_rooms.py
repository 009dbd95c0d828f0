"""Durable rooms (`--data PATH`): rooms come back after the server is stopped and started again on
the same file — moved rows, move version, lock and key, the offset they came to rest at — and an
unusable file stops the server with a message instead of being replaced."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

from server_helpers import ClientClock, Viewer, drag, move_row, order, run, settle


def test_a_moved_row_and_its_version_survive_a_restart(server_factory, tmp_path, room_name):
    # The directory does not exist yet: the server makes it.
    data = tmp_path / "data" / "scrollcast.sqlite"
    server = server_factory(data=data)

    async def before():
        a = await Viewer.join(server.ws_url, room_name)
        _, _, snapshot = await a.wait_type("snapshot")
        row, up = await move_row(a, snapshot)
        _, _, moved = await a.wait_type("rowMoved")
        assert moved["rowId"] == row["id"] and moved["version"] == 1
        await settle(a, up)
        late = await Viewer.join(server.ws_url, room_name)
        _, _, late_snapshot = await late.wait_type("snapshot")
        assert order(late_snapshot) != order(snapshot)
        for v in (a, late):
            await v.close()
        return order(late_snapshot)

    moved_order = run(before())
    assert server.stop() == 0
    assert data.is_file()
    server.start()

    async def after():
        b = await Viewer.join(server.ws_url, room_name)
        _, _, snapshot = await b.wait_type("snapshot")
        assert order(snapshot) == moved_order, "the new viewer sees the order from before the restart"
        # The snapshot has no version; the next move shows the count went on from the stored one.
        _, up = await move_row(b, snapshot, rows_down=1)
        _, _, moved = await b.wait_type("rowMoved")
        assert moved["version"] == 2
        await settle(b, up)
        await b.close()

    run(after())


def test_a_room_comes_back_at_the_offset_where_it_came_to_rest(server_factory, tmp_path, room_name):
    data = tmp_path / "rooms.sqlite"
    server = server_factory(data=data)

    async def scroll_and_rest():
        clock = ClientClock()
        viewer = await Viewer.join(server.ws_url, room_name)
        _, _, snapshot = await viewer.wait_type("snapshot")
        top = snapshot["frame"]["offset"]
        # A flick: the content decelerates and comes to rest somewhere down the table.
        last = await drag(viewer, clock, x=150, y0=700, y1=250, steps=8)
        index = await settle(viewer, last)
        rest = viewer.received[index][1]["offset"]
        assert rest > top + 200
        await viewer.close()
        return rest

    rest = run(scroll_and_rest())
    assert server.stop() == 0
    server.start()

    async def after():
        viewer = await Viewer.join(server.ws_url, room_name)
        _, _, snapshot = await viewer.wait_type("snapshot")
        await viewer.close()
        return snapshot["frame"]

    frame = run(after())
    assert frame["offset"] == rest, "the new viewer's snapshot shows the room where it came to rest"
    assert frame["animating"] is False


def test_a_locked_room_comes_back_locked_and_its_key_still_drives(server_factory, tmp_path, room_name):
    data = tmp_path / "rooms.sqlite"
    server = server_factory(data=data)

    async def create():
        owner = await Viewer.join(server.ws_url, room_name, lock=True)
        _, _, snapshot = await owner.wait_type("snapshot")
        assert snapshot["locked"] is True
        await owner.close()
        return snapshot["driverKey"]

    key = run(create())
    assert server.stop() == 0
    assert key.encode() not in data.read_bytes(), "only the key's digest is stored"
    server.start()

    async def after():
        clock = ClientClock()
        watcher = await Viewer.join(server.ws_url, room_name)
        _, _, watcher_snapshot = await watcher.wait_type("snapshot")
        assert watcher_snapshot["locked"] is True and "driverKey" not in watcher_snapshot
        refused_id = await watcher.input("wheel", clock.now(), dx=0, dy=100, mode="pixel")
        _, _, refused = await watcher.wait_type("refused", where=lambda r: r["input"] == refused_id)
        assert refused["code"] == "locked"

        holder = await Viewer.join(server.ws_url, room_name, driverKey=key)
        _, _, holder_snapshot = await holder.wait_type("snapshot")
        assert holder_snapshot["locked"] is True
        me = holder_snapshot["viewer"]
        wheel = await holder.input("wheel", clock.now(), dx=0, dy=100, mode="pixel")
        await watcher.wait_type("frame", where=lambda f: (f["input"] or {}).get("viewer") == me
                                and f["input"]["id"] == wheel)
        assert not [o for _, o in holder.received if o["type"] == "refused"]
        for v in (watcher, holder):
            await v.close()

    run(after())


V1_FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "databases" / "scrollcast-v1.sqlite"


def test_a_database_of_the_first_schema_is_brought_forward_and_its_rooms_come_back(server_factory, tmp_path):
    """Tests/fixtures/databases/scrollcast-v1.sqlite was written by the first schema (migration
    `v1` only): room `v1-locked`, the seed table with row 19 moved to the top (move version 1),
    locked with the key `fixture-key` (its digest only). A server of this build upgrades a copy
    and serves the room as it was."""
    data = tmp_path / "old.sqlite"
    shutil.copyfile(V1_FIXTURE, data)
    server = server_factory("--room-ttl", "never", data=data)

    async def scenario():
        clock = ClientClock()
        watcher = await Viewer.join(server.ws_url, "v1-locked")
        _, _, snapshot = await watcher.wait_type("snapshot")
        assert snapshot["sceneName"] == "seed-table"
        assert order(snapshot) == [[19, *range(19)]]
        assert snapshot["locked"] is True and "driverKey" not in snapshot
        refused_id = await watcher.input("wheel", clock.now(), dx=0, dy=40, mode="pixel")
        _, _, refused = await watcher.wait_type("refused", where=lambda r: r["input"] == refused_id)
        assert refused["code"] == "locked"

        holder = await Viewer.join(server.ws_url, "v1-locked", driverKey="fixture-key")
        _, _, held = await holder.wait_type("snapshot")
        assert held["driverKey"] == "fixture-key"
        _, up = await move_row(holder, held, rows_down=1)
        _, _, moved = await holder.wait_type("rowMoved")
        assert moved["version"] == 2, "the move count goes on from the old file's"
        await settle(holder, up)
        for v in (watcher, holder):
            await v.close()

    run(scenario())
    assert server.stop() == 0


def test_an_unusable_file_stops_the_server_with_a_clear_message(tmp_path):
    path = tmp_path / "scrollcast.sqlite"
    garbage = bytes((i * 7 + 3) % 256 for i in range(8192))
    path.write_bytes(garbage)
    out = subprocess.run([os.environ["SCROLLCAST_BIN"], "--port", "0", "--data", str(path)],
                         capture_output=True, text=True, timeout=30)
    assert out.returncode > 0, (out.returncode, out.stderr)  # an exit, not a crash by signal
    assert f"{path} is not a Scrollcast database" in out.stderr
    assert "move it away or pass --data none" in out.stderr
    assert "listening" not in out.stdout
    assert path.read_bytes() == garbage, "the file is left as it was"
