"""`scrollcast scene check FILE…` (docs/scenes.md): every error as FILE:LINE: PATH: message, exit 0
only when every file is good. One case per kind of error, each with its exact line."""

from __future__ import annotations

import zlib

import pytest

from scene_files_helpers import BAD_ERRORS, BAD_TEXT, EXAMPLES, scene_check, scene_images

LIMIT = 20_000


def layout(extra: str = "", rows: str = '{"title": "a"}') -> str:
    """A small scene: `extra` on line 2, headerHeight on line 3, the rows from line 4."""
    return f'{{\n{extra}\n"headerHeight": 0,\n"sections": [{{"title": "S", "rows": [{rows}]}}]\n}}\n'


def layer(image: str, width: int = 40, height: int = 30) -> str:
    return f'"layers": [{{"image": "{image}", "width": {width}, "height": {height}}}],'


GOOD_PNG = scene_images.png(40, 30, lambda x, y: (x * 6, y * 8, 90, 255))


def damaged_idat(png: bytes) -> bytes:
    """`png` with a byte of its compressed image data changed and IDAT's CRC made good again: only
    inflating the data finds the damage."""
    at = png.index(b"IDAT")
    length = int.from_bytes(png[at - 4:at], "big")
    data = bytearray(png[at + 4:at + 4 + length])
    data[-1] ^= 0xFF   # the Adler-32 of the inflated rows
    crc = zlib.crc32(b"IDAT" + bytes(data)).to_bytes(4, "big")
    return png[:at + 4] + bytes(data) + crc + png[at + 8 + length:]


def too_many_rows() -> str:
    rows = ",\n".join(['{"title": "r"}'] * (LIMIT + 1))
    return f'{{"headerHeight": 0, "sections": [{{"title": "S", "rows": [\n{rows}]}}]}}\n'


# (case, file text, images to write beside it, the one expected line after "FILE:")
CASES = [
    ("syntax", '{\n"headerHeight": 0,\n"sections": [\n', {},
     "4: $.sections[0]: not valid JSON: unexpected end of file"),
    ("missing", '{\n"sections": [{"title": "S", "rows": [{"title": "a"}]}]\n}\n', {},
     "1: $: missing field 'headerHeight'"),
    ("missing-nested", layout(rows='{"title": "a"}, {"height": 50}'), {},
     "4: $.sections[0].rows[1]: missing field 'title'"),
    ("unknown", layout('"rowHeight": 44,'), {},
     "2: $.rowHeight: unknown field 'rowHeight' (known here: $schema, viewport, insets, headerHeight, layers, background, sections, decelerationRate)"),
    ("duplicate", layout('"headerHeight": 10,'), {},
     "3: $.headerHeight: duplicate field 'headerHeight' (also on line 2)"),
    ("wrong-type", layout('"viewport": {"width": "390", "height": 844},'), {},
     "2: $.viewport.width: must be a number, got a string"),
    ("negative", layout(rows='{"title": "a", "height": -10}'), {},
     "4: $.sections[0].rows[0].height: must be more than 0, got -10"),
    ("non-finite", layout('"insets": {"top": 1e400, "left": 0, "bottom": 0, "right": 0},'), {},
     "2: $.insets.top: must be a finite number (this one is too large for a double)"),
    ("missing-image", layout(layer("gone.png")), {},
     "2: $.layers[0].image: image 'gone.png': no such file"),
    ("unreadable-image", layout(layer("folder.png")), {"folder.png": None},
     "2: $.layers[0].image: image 'folder.png': is a folder, not a file"),
    ("cut-png", layout(layer("cut.png")), {"cut.png": GOOD_PNG[:60]},
     "2: $.layers[0].image: image 'cut.png' cannot be decoded: PNG chunk IDAT runs past the end of the file"),
    ("crc-png", layout(layer("crc.png")), {"crc.png": GOOD_PNG[:50] + bytes([GOOD_PNG[50] ^ 1]) + GOOD_PNG[51:]},
     "2: $.layers[0].image: image 'crc.png' cannot be decoded: PNG chunk IDAT fails its CRC (the file is damaged)"),
    ("inflate-png", layout(layer("inflate.png")), {"inflate.png": damaged_idat(GOOD_PNG)},
     "2: $.layers[0].image: image 'inflate.png' cannot be decoded: PNG image data does not inflate (the compressed data is damaged)"),
    ("cut-jpeg", layout(layer("cut.jpg")), {"cut.jpg": scene_images.jpeg(40, 30, lambda bx, by: (200, 90, 40))[:-2]},
     "2: $.layers[0].image: image 'cut.jpg' cannot be decoded: JPEG ends inside a scan's data (the file is cut short)"),
    ("cut-webp", layout(layer("cut.webp")), {"cut.webp": scene_images.webp_mask(40, 30, (9, 9, 9), lambda x, y: x > y)[:-4]},
     "2: $.layers[0].image: image 'cut.webp' cannot be decoded: WebP's RIFF header says 184 bytes, the file has 180 (cut short or padded)"),
    ("svg-name", layout(layer("logo.svg")), {"logo.svg": b"<svg/>"},
     "2: $.layers[0].image: SVG is not accepted as a scene image: use PNG, JPEG or WebP ('logo.svg')"),
    ("svg-content", layout(layer("logo.png")), {"logo.png": b'<svg xmlns="http://www.w3.org/2000/svg"/>'},
     "2: $.layers[0].image: image 'logo.png' cannot be decoded: SVG (or other XML/HTML) is not accepted as a scene image: use PNG, JPEG or WebP"),
    ("size", layout(layer("good.png", width=40, height=40)), {"good.png": GOOD_PNG},
     "2: $.layers[0].image: image 'good.png' is 40×30 pixels, not the shape of the 40×40 points the scene draws it at (at 1× it would be 40×40)"),
    ("too-many-rows", too_many_rows(), {},
     f"{LIMIT + 2}: $.sections[0].rows[{LIMIT}]: row {LIMIT + 1} of the scene: a scene has at most {LIMIT} rows"),
    ("duplicate-section", '{"headerHeight": 0, "sections": [\n{"title": "A", "rows": [{"title": "a"}]},\n{"title": "A", "rows": [{"title": "b"}]}]}\n', {},
     "3: $.sections[1].title: duplicate section title 'A' (also section 0)"),
]


@pytest.mark.parametrize("case,text,images,expected", CASES, ids=[c[0] for c in CASES])
def test_each_kind_of_error_is_one_line_with_its_path_and_line(tmp_path, case, text, images, expected):
    for name, data in images.items():
        if data is None:
            (tmp_path / name).mkdir()
        else:
            (tmp_path / name).write_bytes(data)
    scene = tmp_path / f"{case}.json"
    scene.write_text(text)
    result = scene_check(scene)
    assert result.returncode == 1, result
    assert result.stdout.splitlines() == [f"{scene}:{expected}"]
    assert result.stderr == "1 of 1 scene files have errors\n"


def test_the_examples_are_good_and_say_what_they_hold():
    files = sorted(EXAMPLES.glob("*.json"))
    result = scene_check(*files)
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stdout.splitlines() == [
        f"{EXAMPLES}/contacts.json: ok: scene 'contacts', 24 sections, 373 rows, 1 image",
        f"{EXAMPLES}/photo-feed.json: ok: scene 'photo-feed', 8 sections, 24 rows, 5 images",
        f"{EXAMPLES}/trail-guide.json: ok: scene 'trail-guide', 12 sections, 60 rows, 2 images",
    ]


def test_one_bad_file_among_good_ones_fails_the_run_and_every_error_is_printed(tmp_path):
    bad = tmp_path / "broken.json"
    bad.write_text(BAD_TEXT)
    reserved = tmp_path / "demo.json"
    reserved.write_text(layout())
    good = EXAMPLES / "photo-feed.json"
    result = scene_check(good, bad, reserved)
    assert result.returncode == 1
    assert result.stdout.splitlines() == [
        f"{good}: ok: scene 'photo-feed', 8 sections, 24 rows, 5 images",
        f"{bad}:3: {BAD_ERRORS[0]}",
        f"{bad}:4: {BAD_ERRORS[1]}",
        f"{reserved}: $: 'demo' is the name of a built-in scene; rename the file",
    ]
    assert result.stderr == "2 of 3 scene files have errors\n"


def test_an_unreadable_file_and_no_files_are_errors(tmp_path):
    missing = tmp_path / "nowhere.json"
    result = scene_check(missing)
    assert result.returncode == 1
    assert result.stdout == f"{missing}: $: cannot read the scene file: no such file\n"
    nothing = scene_check()
    assert nothing.returncode == 64 and "Missing expected argument '<file> ...'" in nothing.stderr


def test_help_explains_the_output_and_exit_status():
    result = scene_check(extra=("--help",))
    assert result.returncode == 0
    text = " ".join(result.stdout.split())
    for phrase in ["FILE:LINE: PATH: message", "Exit status: 0 when every file is good, 1 otherwise",
                   "docs/scenes.md", "PNG, JPEG or WebP", f"at most {LIMIT} rows"]:
        assert phrase in text, phrase
