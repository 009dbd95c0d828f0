"""HTTP side of the server: the page and its modules, nothing outside Public/, /healthz, /metrics."""

from __future__ import annotations

import socket
import urllib.error
import urllib.request
from pathlib import Path

from server_helpers import PUBLIC

EXPECTED_TYPES = {
    ".html": "text/html",
    ".js": "text/javascript",
    ".mjs": "text/javascript",
    ".css": "text/css",
    ".svg": "image/svg+xml",
    ".png": "image/png",
    ".json": "application/json",
    ".ico": "image/x-icon",
    ".woff2": "font/woff2",
    ".webp": "image/webp",
    ".wasm": "application/wasm",
}


def get(url: str) -> tuple[int, str, bytes]:
    try:
        with urllib.request.urlopen(url, timeout=10) as response:
            return response.status, response.headers.get("content-type", ""), response.read()
    except urllib.error.HTTPError as error:
        return error.code, error.headers.get("content-type", ""), error.read()


def raw_get(port: int, path: str) -> tuple[int, bytes]:
    """A GET with the path sent exactly as given (urllib would normalise '..')."""
    with socket.create_connection(("127.0.0.1", port), timeout=10) as sock:
        sock.sendall(f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nConnection: close\r\n\r\n".encode())
        data = b""
        while chunk := sock.recv(65536):
            data += chunk
    status = int(data.split(b" ", 2)[1])
    return status, data.split(b"\r\n\r\n", 1)[-1]


def test_page_is_served_at_the_root_as_html(scrollcast_server):
    status, content_type, body = get(scrollcast_server.base_url + "/?room=demo")
    assert status == 200
    assert content_type.startswith("text/html")
    assert body == (PUBLIC / "index.html").read_bytes()



def pytest_generate_tests(metafunc):
    if "public_file" in metafunc.fixturenames:
        files = sorted(p for p in PUBLIC.rglob("*") if p.is_file())
        metafunc.parametrize("public_file", files, ids=[str(p.relative_to(PUBLIC)) for p in files])


def test_public_file_served_with_right_type(scrollcast_server, public_file: Path):
    relative = public_file.relative_to(PUBLIC).as_posix()
    status, content_type, body = get(f"{scrollcast_server.base_url}/{relative}")
    assert status == 200, relative
    assert body == public_file.read_bytes()
    expected = EXPECTED_TYPES.get(public_file.suffix)
    assert expected, f"no expected type listed for {public_file.suffix} ({relative}); add it here"
    assert content_type.split(";")[0].strip() == expected, f"{relative}: {content_type}"


def test_nothing_outside_public_is_served(scrollcast_server):
    secret = (PUBLIC.parent / "Package.swift").read_bytes()
    for path in ["/../Package.swift", "/%2e%2e/Package.swift", "/..%2fPackage.swift", "/js/../../Package.swift",
                 "/Package.swift", "//etc/passwd", "/../../../../etc/passwd"]:
        status, body = raw_get(scrollcast_server.port, path)
        assert status != 200 or (secret not in body and b"root:" not in body), path
        assert secret not in body and b"root:x:" not in body, path


def test_missing_file_is_404(scrollcast_server):
    status, _, _ = get(scrollcast_server.base_url + "/no-such-file.js")
    assert status == 404


def test_healthz(scrollcast_server):
    status, content_type, body = get(scrollcast_server.base_url + "/healthz")
    assert status == 200
    assert body.strip() == b"ok"
    assert content_type.startswith("text/plain")


def test_metrics_in_prometheus_text_format(scrollcast_server):
    status, content_type, body = get(scrollcast_server.base_url + "/metrics")
    assert status == 200
    assert content_type.startswith("text/plain")
    text = body.decode()
    for name, kind in [("scrollcast_viewers", "gauge"), ("scrollcast_rooms", "gauge"),
                       ("scrollcast_frames_sent_total", "counter"), ("scrollcast_frames_skipped_total", "counter"),
                       ("scrollcast_inputs_total", "counter"), ("scrollcast_refused_inputs_total", "counter"),
                       ("scrollcast_bytes_out_total", "counter"), ("scrollcast_frame_encode_seconds", "histogram")]:
        assert f"# TYPE {name} {kind}" in text, name
