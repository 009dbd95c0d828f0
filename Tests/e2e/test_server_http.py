"""HTTP side of the server: the page and its modules, nothing outside Public/, /healthz, /metrics;
compressed copies made at build time, validators and the cache policy (docs/design.md, "Static files")."""

from __future__ import annotations

import gzip
import re
import shutil
import socket
import subprocess
import urllib.error
import urllib.request
from pathlib import Path

import pytest

from server_helpers import PUBLIC, REPO, RunningServer, without_versions

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
    # The page as written, with the content versions of the files it names (test_versions_…).
    assert without_versions(body) == (PUBLIC / "index.html").read_bytes()
    assert b'src="bundle/page.js?v=' in body and b'href="styles.css?v=' in body



def pytest_generate_tests(metafunc):
    if "public_file" in metafunc.fixturenames:
        files = sorted(p for p in PUBLIC.rglob("*") if p.is_file())
        metafunc.parametrize("public_file", files, ids=[str(p.relative_to(PUBLIC)) for p in files])


def test_public_file_served_with_right_type(scrollcast_server, public_file: Path):
    relative = public_file.relative_to(PUBLIC).as_posix()
    status, content_type, body = get(f"{scrollcast_server.base_url}/{relative}")
    assert status == 200, relative
    # A page goes out with its files' versions written in (test_versions_in_the_page_…).
    assert (without_versions(body) if public_file.suffix == ".html" else body) == public_file.read_bytes()
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


# --- Compressed copies, validators and caching (docs/design.md, "Static files") ---

def unbrotli(data: bytes) -> bytes:
    """Brotli's own CLI decoding (Debian's `brotli`, which scripts/install-deps.sh installs)."""
    out = subprocess.run(["brotli", "-d", "-c"], input=data, capture_output=True, check=True)
    return out.stdout


def request(url: str, method: str = "GET", **headers: str) -> tuple[int, dict, bytes]:
    """(status, headers with lower-case names, body) without urllib's own decoding or caching."""
    req = urllib.request.Request(url, method=method, headers=headers)
    try:
        with urllib.request.urlopen(req, timeout=10) as response:
            return response.status, {k.lower(): v for k, v in response.headers.items()}, response.read()
    except urllib.error.HTTPError as error:
        return error.code, {k.lower(): v for k, v in error.headers.items()}, error.read()


def test_every_public_file_is_cached_but_revalidated(scrollcast_server):
    for path in ["/", "/js/main.js", "/styles.css", "/images/background.svg"]:
        status, headers, _ = request(scrollcast_server.base_url + path)
        assert status == 200, path
        assert headers["cache-control"] == "no-cache", path   # kept, but asked about on every load
        assert headers["etag"].startswith('"') and headers["vary"] == "Accept-Encoding", path
        again, _, body = request(scrollcast_server.base_url + path, **{"If-None-Match": headers["etag"]})
        assert again == 304 and body == b"", path


@pytest.fixture(scope="module")
def encoded_site(tmp_path_factory):
    """A copy of Public/ with its compressed copies made by scripts/precompress.sh, served by its own
    server (the tests change its files)."""
    root = tmp_path_factory.mktemp("site")
    public, encoded = root / "public", root / "encoded"
    shutil.copytree(PUBLIC, public)
    made = subprocess.run([str(REPO / "scripts/precompress.sh"), str(public), str(encoded)], capture_output=True, text=True)
    assert made.returncode == 0, made.stderr
    server = RunningServer("--encoded", str(encoded), public=public)
    yield server, public, encoded
    server.stop()


ENCODED_FILES = ["js/main.js", "styles.css", "images/background.svg"]


@pytest.mark.parametrize("relative", ENCODED_FILES + ["wasm/scrollcast-engine.wasm"])
def test_a_compressed_copy_goes_to_clients_that_accept_it(encoded_site, relative):
    server, public, encoded = encoded_site
    if not (public / relative).exists():
        pytest.fail(f"{relative} is missing: build the page's module first (make Public/wasm/scrollcast-engine.wasm)")
    original = (public / relative).read_bytes()
    url = f"{server.base_url}/{relative}"
    plain_status, plain, plain_body = request(url)
    assert plain_status == 200 and plain_body == original and "content-encoding" not in plain
    assert int(plain["content-length"]) == len(original)
    for accept, coding, decode in [("gzip", "gzip", gzip.decompress), ("gzip, deflate, br", "br", unbrotli),
                                   ("br;q=0.5, gzip", "gzip", gzip.decompress), ("*", "br", unbrotli)]:
        status, headers, body = request(url, **{"Accept-Encoding": accept})
        assert status == 200 and headers["content-encoding"] == coding, (accept, headers)
        assert headers["vary"] == "Accept-Encoding" and int(headers["content-length"]) == len(body) < len(original)
        assert decode(body) == original, accept
        assert headers["etag"] != plain["etag"], "each coding has its own tag"
        head_status, head, head_body = request(url, method="HEAD", **{"Accept-Encoding": accept})
        assert head_status == 200 and head_body == b"" and head["content-length"] == headers["content-length"]
        assert head["etag"] == headers["etag"] and head["content-encoding"] == coding
    for refusing in ["identity", "br;q=0, gzip;q=0", "deflate", "*;q=0"]:
        status, headers, body = request(url, **{"Accept-Encoding": refusing})
        assert status == 200 and "content-encoding" not in headers and body == original, refusing


def test_if_none_match_gets_304_until_the_file_changes_and_a_stale_copy_is_never_sent(encoded_site):
    server, public, encoded = encoded_site
    url = f"{server.base_url}/js/main.js"
    gz = {"Accept-Encoding": "gzip"}
    _, first, _ = request(url, **gz)
    status, headers, body = request(url, **gz, **{"If-None-Match": first["etag"]})
    assert status == 304 and body == b"" and headers["etag"] == first["etag"]
    status, _, _ = request(url, **gz, **{"If-None-Match": f'"other", W/{first["etag"]}'})
    assert status == 304, "weak comparison, any tag in the list"
    status, _, _ = request(url, **{"If-None-Match": first["etag"]})
    assert status == 200, "the plain file is another representation"

    # A new build of the file: its copies are now older than it, so the plain file goes out.
    changed = (public / "js/main.js").read_bytes() + b"\n// rebuilt\n"
    (public / "js/main.js").write_bytes(changed)
    status, headers, body = request(url, **gz, **{"If-None-Match": first["etag"]})
    assert status == 200 and "content-encoding" not in headers and body == changed
    assert headers["etag"] != first["etag"]
    # A missing copy: the plain file too.
    (encoded / "styles.css.br").unlink()
    status, headers, body = request(f"{server.base_url}/styles.css", **{"Accept-Encoding": "br"})
    assert status == 200 and "content-encoding" not in headers and body == (public / "styles.css").read_bytes()
    # The copies made again are sent again, under the new tag.
    made = subprocess.run([str(REPO / "scripts/precompress.sh"), str(public), str(encoded)], capture_output=True, text=True)
    assert made.returncode == 0, made.stderr
    status, headers, body = request(url, **gz)
    assert status == 200 and headers["content-encoding"] == "gzip" and gzip.decompress(body) == changed
    assert headers["etag"] != first["etag"]


def versions_named_by(page: bytes) -> dict[str, str]:
    """The files a page names with a content version: name → version."""
    return {m[1].decode(): m[2].decode() for m in re.finditer(rb'(?:src|href)="([^"?]+)\?v=([0-9a-f]{16})"', page)}


def test_versions_in_the_page_make_its_files_immutable_until_they_change(encoded_site):
    """The page (never compressed: its copies could not hold the versions) names each file it
    loads by its content version; asked for by that version a file may be kept for good, by any
    other name it is revalidated. A changed file gets a new version, and the page a new tag."""
    server, public, encoded = encoded_site
    status, page, body = request(f"{server.base_url}/", **{"Accept-Encoding": "gzip, br"})
    assert status == 200 and "content-encoding" not in page and page["cache-control"] == "no-cache"
    versions = versions_named_by(body)
    assert {"styles.css", "bundle/page.js", "js/upload.js", "wasm/scrollcast-engine.wasm", "images/background.svg"} <= set(versions)
    assert not (encoded / "index.html.br").exists() and not (encoded / "index.html.gz").exists()
    for name, version in versions.items():
        status, headers, file_body = request(f"{server.base_url}/{name}?v={version}", **{"Accept-Encoding": "gzip"})
        assert status == 200 and headers["cache-control"] == "public, max-age=31536000, immutable", name
        assert (gzip.decompress(file_body) if headers.get("content-encoding") else file_body) == (public / name).read_bytes()
        for other in [f"{name}?v=0000000000000000", name]:
            assert request(f"{server.base_url}/{other}")[1]["cache-control"] == "no-cache", other
    status, _, _ = request(f"{server.base_url}/", **{"If-None-Match": page["etag"]})
    assert status == 304

    # A new build of one file: a new version, the old one no longer immutable, a new page tag.
    (public / "styles.css").write_bytes((public / "styles.css").read_bytes() + b"\n/* rebuilt */\n")
    status, again, body = request(f"{server.base_url}/", **{"If-None-Match": page["etag"]})
    assert status == 200 and again["etag"] != page["etag"]
    changed = versions_named_by(body)
    assert changed["styles.css"] != versions["styles.css"]
    assert {k: v for k, v in changed.items() if k != "styles.css"} == {k: v for k, v in versions.items() if k != "styles.css"}
    old = request(f"{server.base_url}/styles.css?v={versions['styles.css']}")
    assert old[1]["cache-control"] == "no-cache" and old[2] == (public / "styles.css").read_bytes()
    assert request(f"{server.base_url}/styles.css?v={changed['styles.css']}")[1]["cache-control"].endswith("immutable")


def test_range_is_ignored_and_nothing_outside_the_folders_is_served(encoded_site):
    server, public, encoded = encoded_site
    status, headers, body = request(f"{server.base_url}/js/main.js", Range="bytes=0-9")
    assert status == 200 and body == (public / "js/main.js").read_bytes(), "no ranges: the whole file"
    (encoded.parent / "secret.txt.gz").write_bytes(gzip.compress(b"secret"))
    for path in ["/../secret.txt", "/%2e%2e/secret.txt", "/js/../../secret.txt", "/../encoded/index.html.gz"]:
        status, body = raw_get(server.port, path)
        assert status == 404 and b"secret" not in body, path


def test_the_bundle_holds_every_module_and_refuses_what_it_cannot_keep_meaning(tmp_path):
    """The page loads its modules as one script (scripts/bundle-page.py, made for this session by
    conftest.py): every module of Public/js is in it, and syntax whose meaning a bundle would
    change stops the build with the module and line named."""
    bundle = (PUBLIC / "bundle" / "page.js").read_text()
    listed = set(bundle.splitlines()[0].split(": ", 1)[1].rstrip(".").split(", "))
    modules = {p.relative_to(PUBLIC).as_posix() for p in (PUBLIC / "js").rglob("*.js")}
    # The upload form's script is the one module index.html loads apart from the bundle.
    apart = {"js/upload.js"}
    assert 'src="js/upload.js"' in (PUBLIC / "index.html").read_text()
    assert modules - listed == apart, "modules no page code imports (or the bundle is stale)"
    for module in modules - apart:
        assert f"// ---- {module}\n" in bundle, module
    for source, complaint in [('export let count = 0;\n', "js/main.js:1: cannot bundle 'export let count = 0;'"),
                              ('import "./x.js";\n', "js/main.js:1: cannot bundle 'import \"./x.js\";'"),
                              ('import { a } from "lib";\n', "js/main.js:1: only relative imports are bundled, not 'lib'"),
                              ('import { a } from "./main.js";\nexport const b = 1;\n', "a cycle of imports cannot be bundled: js/main.js → js/main.js")]:
        (tmp_path / "js").mkdir(exist_ok=True)
        (tmp_path / "js" / "main.js").write_text(source)
        made = subprocess.run([str(REPO / "scripts/bundle-page.py"), str(tmp_path)], capture_output=True, text=True)
        assert made.returncode == 1 and complaint in made.stderr, (source, made.stderr)
