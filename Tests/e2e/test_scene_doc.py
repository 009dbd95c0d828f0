"""docs/scenes.md's worked example is a good scene that does what the doc says, and the schema
names exactly the fields the decoder knows."""

from __future__ import annotations

import json
import re
import shutil

from scene_files_helpers import EXAMPLES, scene_check
from server_helpers import REPO, RunningServer, Viewer, run

DOC = (REPO / "docs" / "scenes.md").read_text()
SCHEMA = json.loads((REPO / "docs" / "scene.schema.json").read_text())


def worked_example() -> str:
    section = DOC.split("## A worked example", 1)[1]
    return re.search(r"```json\n(.*?)```", section, re.S).group(1)


def test_the_worked_example_checks_and_serves_as_the_doc_says(tmp_path):
    for image in ["feed-sky.jpg", "feed-front.png", "feed-background.png"]:
        shutil.copy(EXAMPLES / image, tmp_path / image)
    scene = tmp_path / "my-feed.json"
    scene.write_text(worked_example())
    result = scene_check(scene)
    assert result.returncode == 0, result.stdout
    assert result.stdout == f"{scene}: ok: scene 'my-feed', 2 sections, 4 rows, 3 images\n"
    assert "`my-feed.json: ok: scene 'my-feed', 2 sections, 4\nrows, 3 images`" in DOC

    server = RunningServer("--scenes", str(tmp_path))
    try:
        async def scenario():
            viewer = await Viewer.join(server.ws_url, "worked", scene="my-feed")
            _, _, snapshot = await viewer.wait_type("snapshot")
            await viewer.close()
            return snapshot
        snapshot = run(scenario())
    finally:
        server.stop()
    frame = snapshot["frame"]
    assert frame["contentHeight"] == 1244 and "1244 pt high" in DOC
    ratio = (3000 - 844) / (1244 + 44 - 844)
    assert f"{ratio:.2f} pt per point" in DOC
    # Row 3 has no group: the info panel would name its section; its height is the default 44.
    assert snapshot["scene"]["sections"][1]["headerHeight"] == 28


def test_the_schema_names_the_fields_the_decoder_knows(tmp_path):
    properties = SCHEMA["properties"]
    assert list(properties) == ["$schema", "viewport", "insets", "headerHeight", "layers", "background",
                                "sections", "decelerationRate"]
    layer = properties["layers"]["items"]["properties"]
    assert list(layer) == ["image", "width", "height", "restingY", "pullFactor", "scrollFactor"]
    section = properties["sections"]["items"]
    assert list(section["properties"]) == ["title", "headerHeight", "rows"]
    assert list(section["properties"]["rows"]["items"]["properties"]) == ["title", "subtitle", "group", "detail", "height"]
    assert SCHEMA["required"] == ["headerHeight", "sections"]
    # The decoder's own list, as its unknown-field message gives it.
    path = tmp_path / "x.json"
    path.write_text('{"headerHeight": 0, "nope": 1, "sections": [{"title": "S", "rows": [{"title": "a"}]}]}')
    assert f"(known here: {', '.join(properties)})" in scene_check(path).stdout
