"""Scene uploads (docs/scenes.md, "Uploads"): the example trail-guide scene as form data, posted
with the standard library so a test reads the server's exact status and JSON."""

from __future__ import annotations

import json
import urllib.error
import urllib.request
import uuid
from pathlib import Path

from scene_files_helpers import EXAMPLES

TRAIL = ["trail-guide.json", "trail-sun.webp", "trail-mountains.png"]


def trail_files() -> list[Path]:
    return [EXAMPLES / name for name in TRAIL]


def post_scene(server, scene: tuple[str, bytes], images: list[tuple[str, bytes]]):
    """POSTs one upload; returns (status, headers, parsed JSON)."""
    boundary = uuid.uuid4().hex
    body = b""
    for field, (name, data) in [("scene", scene)] + [("image", image) for image in images]:
        body += (f"--{boundary}\r\nContent-Disposition: form-data; name=\"{field}\"; filename=\"{name}\"\r\n"
                 f"Content-Type: application/octet-stream\r\n\r\n").encode() + data + b"\r\n"
    body += f"--{boundary}--\r\n".encode()
    request = urllib.request.Request(server.base_url + "/scenes", data=body, method="POST",
                                     headers={"Content-Type": f"multipart/form-data; boundary={boundary}"})
    try:
        with urllib.request.urlopen(request, timeout=20) as reply:
            return reply.status, reply.headers, json.loads(reply.read())
    except urllib.error.HTTPError as error:
        return error.code, error.headers, json.loads(error.read())


def post_trail(server):
    files = trail_files()
    return post_scene(server, (files[0].name, files[0].read_bytes()), [(f.name, f.read_bytes()) for f in files[1:]])
