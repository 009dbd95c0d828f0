"""Page polish a viewer notices: the stats line sits outside the phone frame, rows stay readable
over every band of the background (light cells by day, dark by night), and the ground shown when
the header is pulled down is not a dark slab."""

from page_fixtures import (  # noqa: F401  (pytest fixtures are used by name)
    ScrollcastPage, artifacts, browser_type_launch_args, page_server, room,
)

# Per visible row: WCAG contrast between the cell (its median colour) and its title's ink (the
# pixel farthest from that median), and the cell's own relative luminance.
ROW_CONTRAST = """(rows) => {
  const c = document.getElementById('view');
  const k = c.width / window.scrollcast.state.lastFrame.viewport.width;
  const lin = (v) => { v /= 255; return v <= 0.04045 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4; };
  const rel = (d, i) => 0.2126 * lin(d[i]) + 0.7152 * lin(d[i + 1]) + 0.0722 * lin(d[i + 2]);
  return rows.map((r) => {
    const d = c.getContext('2d').getImageData(Math.round(14 * k), Math.round((r.y + 6) * k),
                                              Math.round(110 * k), Math.round((r.h - 12) * k)).data;
    const l = [];
    for (let i = 0; i < d.length; i += 4) l.push(rel(d, i));
    const sorted = [...l].sort((a, b) => a - b);
    const cell = sorted[sorted.length >> 1];
    const text = l.reduce((best, v) => Math.abs(v - cell) > Math.abs(best - cell) ? v : best, cell);
    return { id: r.id, cell, contrast: (Math.max(cell, text) + 0.05) / (Math.min(cell, text) + 0.05) };
  });
}"""


def visible_rows(sc: ScrollcastPage):
    frame = sc.frame()
    top = sc.insets()["top"]
    headers = [(h["y"], h["y"] + h["h"]) for h in frame["headers"]]
    return [r for r in frame["rows"]
            if r["y"] >= top and r["y"] + r["h"] <= frame["viewport"]["height"]
            and not any(a < r["y"] + r["h"] and r["y"] < b for a, b in headers)]


def test_stats_line_is_outside_the_phone_frame(page, page_server, room, artifacts):
    artifacts.watch(page)
    sc = ScrollcastPage(page, page_server.base_url, room).open()
    page.mouse.move(*sc.client_point(200, 400))
    page.mouse.wheel(0, 200)
    page.wait_for_function("document.getElementById('latency').textContent.includes('ms')")
    stats = page.locator("#overlay").bounding_box()
    phone = page.locator("#phone").bounding_box()
    assert stats["y"] >= phone["y"] + phone["height"], (stats, phone)
    assert stats["y"] + stats["height"] <= page.viewport_size["height"]
    assert page.locator("#fps").is_visible() and "fps" in page.locator("#fps").inner_text()
    artifacts.screenshot(page, "stats-below-phone")


def test_rows_are_readable_from_dawn_to_night(page, page_server, room, artifacts):
    artifacts.watch(page)
    sc = ScrollcastPage(page, page_server.base_url, room).open()
    sc.wait_idle()
    page.locator("#view").focus()
    seen = []
    for step, key in enumerate([None, "End"]):
        if key:
            page.keyboard.press(key)
            sc.wait("s => s.lastFrame.offset > 1000")
            sc.wait_idle()
        rows = visible_rows(sc)
        assert len(rows) >= 5
        measured = page.evaluate(ROW_CONTRAST, rows)
        for m in measured:
            assert m["contrast"] >= 4.5, (key, m)
        seen.append(measured)
        artifacts.screenshot(page, f"readable-{step}")
    # By night (the end of the table, the darkest band) the cells are dark, not muddy grey.
    night = seen[-1]
    assert max(m["cell"] for m in night) < 0.08, night
    # By day (the top) they are light.
    assert min(m["cell"] for m in seen[0]) > 0.4, seen[0]


def test_pulled_down_ground_is_light_not_a_dark_slab(page, page_server, room, artifacts):
    artifacts.watch(page)
    sc = ScrollcastPage(page, page_server.base_url, room).open()
    sc.wait_idle()
    top = sc.insets()["top"]
    sc.drag(200, 150, 200, 560, steps=24, release=False)
    sc.wait("(s, top) => s.lastFrame.offset + top < -120 && s.lastFrame.phase === 'tracking'", top)
    frame = sc.frame()
    scene = page.evaluate("window.scrollcast.scene")
    front = max(frame["layers"], key=lambda l: l["i"])
    front_bottom = front["y"] + scene["layers"][front["i"]]["height"]
    header_bottom = scene["headerHeight"] - frame["offset"]
    assert header_bottom - front_bottom > 40, (front_bottom, header_bottom)
    # The gap below the front layer, past its short fade.
    band = sc.region_stats(0, front_bottom + 30, frame["viewport"]["width"], header_bottom - front_bottom - 32)
    assert band["luminance"] > 90, band
    artifacts.screenshot(page, "pulled-down-ground")
    sc.release()
