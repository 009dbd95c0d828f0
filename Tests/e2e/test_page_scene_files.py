"""Scene files in real Chromium (docs/scenes.md): the page lists the server's scenes, `?scene=NAME`
makes a room of a file scene whose PNG, JPEG and WebP images the browser loads from the server,
and the scene's own layer factors move its header when pulled."""

from __future__ import annotations

from page_fixtures import (  # noqa: F401  (pytest fixtures are used by name)
    ScrollcastPage, artifacts, browser_type_launch_args, room,
)
from scene_files_helpers import example, scenes_dir, scenes_server  # noqa: F401


def test_a_file_scene_opens_by_name_with_every_image_decoded(page, scenes_server, room, artifacts):
    artifacts.watch(page)
    sc = ScrollcastPage(page, scenes_server.base_url, room).open("&scene=photo-feed")
    assert sc.state("s.sceneName") == "photo-feed"
    # The browser decoded every image: a failed decode would read "failed".
    assert sc.state("s.images") == {"ready": True, "background": "loaded", "layers": ["loaded"] * 4}
    file = example("photo-feed")
    top = file["insets"]["top"]
    # The header shows the scene's sky, not the page's base colour: its top is the JPEG's dawn blue.
    sky = sc.region_stats(10, top + 2, 370, 6)
    assert sky["luminance"] < 120, sky
    artifacts.screenshot(page, "photo-feed")

    rest = sc.frame()
    sc.drag(200, 300, 200, 560, steps=20, release=False)
    sc.wait("(s, top) => s.lastFrame.offset + top < -60 && s.lastFrame.phase === 'tracking'", top)
    frame = sc.frame()
    overscroll = frame["offset"] + top
    for i, layer in enumerate(file["layers"]):
        moved = next(l["y"] for l in frame["layers"] if l["i"] == i) - next(l["y"] for l in rest["layers"] if l["i"] == i)
        # parallax-header.txt with this layer's own pull factor.
        assert abs(moved - (-overscroll * layer["pullFactor"])) < 0.02, (i, moved, overscroll)
    sc.release()
    sc.wait_idle()


def test_the_page_lists_every_scene_and_a_link_makes_a_fresh_room_of_it(page, scenes_server, room, artifacts):
    artifacts.watch(page)
    sc = ScrollcastPage(page, scenes_server.base_url, room).open()
    page.wait_for_function("document.querySelectorAll('#scene-list a').length === 5")
    assert page.is_visible("#scene-list")
    names = page.evaluate("[...document.querySelectorAll('#scene-list a')].map(a => a.dataset.scene)")
    assert names == ["demo", "seed-table", "contacts", "photo-feed", "trail-guide"]
    assert sc.state("s.sceneName") == "demo"

    page.click("#scene-list a[data-scene='trail-guide']")
    page.wait_for_url("**scene=trail-guide**")
    page.wait_for_function("window.scrollcast.state.sceneName === 'trail-guide' && window.scrollcast.state.images.ready")
    assert sc.state("s.images") == {"ready": True, "background": "none", "layers": ["loaded", "loaded"]}
    assert page.evaluate("window.scrollcast.scene.viewport") == {"width": 430, "height": 932}
    assert page.evaluate("new URLSearchParams(location.search).get('room')").startswith("trail-guide-")
    artifacts.screenshot(page, "trail-guide")
