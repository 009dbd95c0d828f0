"""Uploading a scene through the page in real Chromium (docs/scenes.md, "Uploads"): picked files
become a new room showing the scene, served from the server's own paths with their true type;
a bad scene's errors are listed line by line; SVG and an image over the limit are refused."""

from __future__ import annotations

import json
import urllib.request

from page_fixtures import (  # noqa: F401  (pytest fixtures are used by name)
    ScrollcastPage, artifacts, browser_type_launch_args, page_server, room,
)
from scene_files_helpers import EXAMPLES
from upload_helpers import post_trail, trail_files

SVG = b'<svg xmlns="http://www.w3.org/2000/svg" width="390" height="180"></svg>'


def upload(page, files):
    page.set_input_files("#upload-files", files)
    page.click("#upload-button")


def shown_errors(page) -> list[str]:
    page.wait_for_function("!document.getElementById('upload-errors').hidden")
    return page.evaluate("[...document.querySelectorAll('#upload-errors li')].map(li => li.textContent)")


def test_picked_files_open_a_new_room_with_the_uploaded_scene(page, page_server, room, artifacts):
    artifacts.watch(page)
    sc = ScrollcastPage(page, page_server.base_url, room).open()
    upload(page, [str(path) for path in trail_files()])
    page.wait_for_url("**scene=u-**", timeout=20000)
    page.wait_for_function("window.scrollcast?.state?.joined && window.scrollcast.state.images.ready", timeout=20000)
    scene_name = sc.state("s.sceneName")
    assert scene_name.startswith("u-") and len(scene_name) == 26
    assert f"scene={scene_name}" in page.url and "room=u-" in page.url
    # Every image decoded in the browser, from where the server put it.
    assert sc.state("s.images") == {"ready": True, "background": "none", "layers": ["loaded", "loaded"]}
    # The browser fetched them from paths the server chose, and got their true type.
    paths = page.evaluate("performance.getEntriesByType('resource').map(e => new URL(e.name).pathname)"
                          ".filter(p => p.startsWith('/scene-images/'))")
    assert sorted(paths) == sorted(f"/scene-images/{scene_name}/{role}" for role in ("layer-0.webp", "layer-1.png")), paths
    types = []
    for path in sorted(paths):
        with urllib.request.urlopen(f"{page_server.base_url}{path}", timeout=10) as reply:
            types.append(reply.headers.get("content-type"))
    assert types == ["image/webp", "image/png"]
    artifacts.screenshot(page, "uploaded-trail")


def test_a_bad_scene_is_refused_with_its_errors_line_by_line(page, page_server, room, artifacts, tmp_path):
    artifacts.watch(page)
    ScrollcastPage(page, page_server.base_url, room).open()
    trail = json.loads((EXAMPLES / "trail-guide.json").read_text())
    trail["headerHeight"] = -5
    trail["rowHeight"] = 44
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(trail, indent=2))
    line_of: dict[str, int] = {}
    for n, text in enumerate(bad.read_text().splitlines()):
        for key in ("headerHeight", "rowHeight"):
            if text.startswith(f'  "{key}"'):  # the top level's, not a section's
                line_of.setdefault(key, n + 1)
    upload(page, [str(bad)] + [str(path) for path in trail_files()[1:]])
    errors = shown_errors(page)
    assert len(errors) == 2, errors
    assert any(e.startswith(f"bad.json:{line_of['headerHeight']}: $.headerHeight: ") for e in errors), errors
    assert any(e.startswith(f"bad.json:{line_of['rowHeight']}: $.rowHeight: unknown field 'rowHeight'") for e in errors), errors
    assert page.inner_text("#upload-status") == "Refused (422):"
    assert f"room={room}" in page.url


def test_svg_and_an_image_over_the_limit_are_refused(page, page_server, room, artifacts, tmp_path):
    artifacts.watch(page)
    ScrollcastPage(page, page_server.base_url, room).open()
    files = trail_files()
    # An SVG under a PNG's name: its content tells.
    disguised = tmp_path / "trail-mountains.png"
    disguised.write_bytes(SVG)
    upload(page, [str(files[0]), str(files[1]), str(disguised)])
    errors = shown_errors(page)
    assert len(errors) == 1 and "SVG (or other XML/HTML) is not accepted" in errors[0], errors
    assert errors[0].startswith("trail-guide.json:"), errors

    big = tmp_path / "big" / "trail-sun.webp"
    big.parent.mkdir()
    big.write_bytes(files[1].read_bytes() + b"\0" * (8 * 1024 * 1024))
    upload(page, [str(files[0]), str(big), str(files[2])])
    page.wait_for_function("document.getElementById('upload-status').textContent === 'Refused (413):'")
    errors = shown_errors(page)
    assert len(errors) == 1 and errors[0].startswith("trail-sun.webp: $: image 'trail-sun.webp' is "), errors
    assert "at most 8388608 (8 MiB)" in errors[0]


BASE_LUMINANCE = 0.2126 * 0xF3 + 0.7152 * 0xC7 + 0.0722 * 0x9B   # COLORS.base, behind everything


def test_an_image_that_never_loads_is_drawn_as_a_placeholder_of_its_size(page, page_server, room, artifacts):
    artifacts.watch(page)
    status, _, answer = post_trail(page_server)
    assert status in (200, 201), answer
    page.route("**/scene-images/**", lambda route: route.abort())
    sc = ScrollcastPage(page, page_server.base_url, room).open(f"&scene={answer['scene']}")
    assert sc.state("s.images") == {"ready": True, "background": "none", "layers": ["failed", "failed"]}
    frame = sc.frame()
    trail = json.loads((EXAMPLES / "trail-guide.json").read_text())
    sun, mountains = ({**spec, "y": next(l["y"] for l in frame["layers"] if l["i"] == i)} for i, spec in enumerate(trail["layers"]))
    # Under the mountains alone: one placeholder over the base colour, the same everywhere.
    one = sc.region_stats(sun["width"] + 20, sun["y"] + sun["height"] + 10, 200, 40)
    # Under the sun too: two placeholders, darker.
    two = sc.region_stats(10, sun["y"] + sun["height"] - 30, sun["width"] - 20, 20)
    assert mountains["y"] < sun["y"] + sun["height"] + 10 and mountains["y"] + mountains["height"] > sun["y"] + sun["height"] + 50
    assert one["colours"] == 1 and abs(one["luminance"] - (0.65 * BASE_LUMINANCE + 0.35 * 128)) < 3, one
    assert two["luminance"] < one["luminance"] - 10, (one, two)
    artifacts.screenshot(page, "placeholders")
