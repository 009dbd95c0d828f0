"""docs/protocol.md, `frame`: a room sends no frame while nothing a viewer would see changes. The
half-second hold before a row lifts used to cost every viewer about 30 frames identical but for
`seq`, `t` and `sentAt`; now the frame of the pointer going down is the last until the row lifts."""

from __future__ import annotations

import pytest

from server_helpers import Viewer, run


@pytest.mark.parametrize("protocol", ["v1", "v2"])
def test_no_frame_during_a_still_hold_and_frames_resume_when_the_row_lifts(scrollcast_server, room_name, protocol):
    async def scenario():
        driver = await Viewer.join(scrollcast_server.ws_url, room_name, protocol=protocol)
        _, _, snapshot = await driver.wait_type("snapshot")
        row = next(r for r in snapshot["frame"]["rows"] if r["y"] > 300)
        x, y = 150, row["y"] + row["h"] / 2
        down = await driver.input("pointerDown", 1000.0, x=x, y=y)
        pressed, _, pressed_frame = await driver.wait_type("frame", where=lambda m: (m["input"] or {}).get("id") == down)
        lifted, _, lifted_frame = await driver.wait_type("frame", timeout=5, start=pressed + 1,
                                                         where=lambda m: m["lifted"] is not None)
        during_hold = [m["seq"] for _, m in driver.received[pressed + 1:lifted] if m.get("type") == "frame"]
        await driver.input("pointerUp", 1800.0, x=x, y=y)
        await driver.close()
        return pressed_frame, lifted_frame, during_hold, row["id"]

    pressed_frame, lifted_frame, during_hold, row_id = run(scenario())
    assert pressed_frame["animating"] is True, "the lift is still to come, without more input"
    assert during_hold == [], f"{len(during_hold)} frames sent while nothing moved"
    assert lifted_frame["lifted"]["id"] == row_id
    assert lifted_frame["seq"] == pressed_frame["seq"] + 1, "no frame numbers were spent on the hold"
    assert lifted_frame["t"] - pressed_frame["t"] >= 490, "the row lifts after the half-second hold"
