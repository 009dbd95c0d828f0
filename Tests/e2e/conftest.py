"""Shared fixtures for the end-to-end tests (Tests/e2e): a real scrollcast server.

The server is the binary in $SCROLLCAST_BIN (nothing is built here), started with `--port 0`;
its first stdout line, "scrollcast listening on http://HOST:PORT", gives the port.

Fixtures:
  scrollcast_server   one server for the whole session (share it; use a fresh room name per test)
  server_factory      start extra servers with their own flags (limits, shutdown tests); each is
                      stopped at the end of the test. Servers keep rooms in memory only
                      (`--data none`) unless started with `data=PATH` (a file in tmp_path)
  room_name           a room name no other test uses
  redis_server        a redis-server of the test's own on a free port (redis_helpers.py)
  cluster             three scrollcast nodes joined to that Redis (cluster_helpers.py)
  link_proxy          a factory: link_proxy(upstream_port, profile="4g", **kw) starts the real
                      scrollcast-link proxy (link_helpers.LinkProxy); each is stopped at the end of the test
  immutable_files     make files immutable (`chattr +i`) so that even root cannot write them, as
                      a read-only disk would; undone at the end of the test. Skips the test where
                      that cannot be done (not root, no chattr, a file system without the flag)
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import uuid

import pytest

from cluster_helpers import Cluster
from link_helpers import LinkProxy
from redis_helpers import redis_server  # noqa: F401  (a fixture, offered to every test here)
from server_helpers import REPO, RunningServer


def pytest_configure(config):
    config.addinivalue_line(
        "markers", "alone: a test whose figure is the machine's own timing (a gap, a latency): `make test-e2e` "
        "runs it after the others, never beside another test (the others run on three workers)")
    config.addinivalue_line(
        "markers", "long(seconds): a test that takes about that long in CI (20 s or more): collected first, "
        "the longest first, so that no worker starts one near the end of the workers' phase")


def pytest_collection_modifyitems(items):
    """`long` tests first, the longest first; the rest in their order. xdist hands tests out in
    collection order, so the cross-check (60-90 s), last by its file's name, started near the end
    and the workers' phase ended on it with the other two workers idle (docs/benchmarks.md §22)."""
    def seconds(item) -> float:
        mark = item.get_closest_marker("long")
        return mark.args[0] if mark else 0
    items.sort(key=lambda item: -seconds(item))


def pytest_sessionstart(session):
    """The page's bundle and compressed copies made from Public/ as it is now, so a module edited
    since the last `make` is what the browsers run (scripts/bundle-page.py, scripts/precompress.sh).
    Made once, before any worker starts: workers (pytest-xdist) would rewrite the files under each
    other's servers."""
    if hasattr(session.config, "workerinput"):
        return
    for script in (["scripts/bundle-page.py", "Public"], ["scripts/precompress.sh", "Public", ".build/public-encoded"]):
        made = subprocess.run([str(REPO / script[0]), *script[1:]], cwd=REPO, capture_output=True, text=True)
        if made.returncode != 0:
            raise pytest.UsageError(f"{script[0]} failed: {made.stderr.strip()}")


@pytest.fixture(autouse=True)
def close_left_contexts(request):
    """Closes the browser contexts a test made and left open. Each keeps its pages running in the
    worker's browser for the rest of the session (a display frame drawn, a socket read or
    retried): a run of 14 page test files left 28 open, 57 renderer processes, and with three
    workers they took CPU from every later test (docs/benchmarks.md §19)."""
    if "browser" not in request.fixturenames:
        yield
        return
    browser = request.getfixturevalue("browser")
    before = set(browser.contexts)
    yield
    for context in browser.contexts:
        if context not in before:
            context.close()


def _servers_of(item) -> list[RunningServer]:
    """The servers a test used: its server fixtures, its cluster's nodes, its factory's servers."""
    found: list[RunningServer] = []
    for value in item.funcargs.values():
        if isinstance(value, RunningServer):
            found.append(value)
        elif isinstance(value, Cluster):
            found.extend(value.nodes)
        found.extend(getattr(value, "started", ()))
    return list(dict.fromkeys(found))


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    """A failed test's report carries the warnings and errors its servers logged: a race seen once
    in CI (a join refused, a claim failed) is then explained by the run that showed it."""
    outcome = yield
    report = outcome.get_result()
    if report.when != "call" or not report.failed:
        return
    for index, server in enumerate(_servers_of(item)):
        lines = [line for line in list(server.stderr_lines) if re.match(r"\S+ (warning|error|critical|notice) ", line)]
        if lines:
            report.sections.append((f"server {index} (port {server.port}) log", "\n".join(lines[-40:])))


@pytest.fixture(scope="session")
def scrollcast_server():
    server = RunningServer()
    yield server
    server.stop()


@pytest.fixture
def server_factory():
    started: list[RunningServer] = []

    def start(*flags: str, data=None) -> RunningServer:
        server = RunningServer(*flags, data=data)
        started.append(server)
        return server

    start.started = started  # read by pytest_runtest_makereport
    yield start
    for server in started:
        server.stop()


@pytest.fixture
def cluster(server_factory, redis_server):  # noqa: F811
    """Three nodes of one cluster on the test's own Redis (cluster_helpers.Cluster)."""
    return Cluster(server_factory, redis_server)


@pytest.fixture
def link_proxy():
    """A factory for emulated links in front of a server (link_helpers.LinkProxy)."""
    started: list[LinkProxy] = []

    def start(upstream_port: int, profile: str = "4g", **kw) -> LinkProxy:
        proxy = LinkProxy.start(upstream_port, profile, **kw)
        started.append(proxy)
        return proxy

    yield start
    for proxy in started:
        proxy.stop()


@pytest.fixture
def room_name() -> str:
    return "t-" + uuid.uuid4().hex[:12]


class ImmutableFiles:
    """`chattr +i` and `-i` on real files: writes to them fail with EPERM, for root too."""

    def __init__(self):
        self.touched: set[str] = set()

    def _chattr(self, flag: str, paths):
        for path in map(str, paths):
            subprocess.run(["chattr", flag, path], check=True, capture_output=True)
            self.touched.add(path)

    def freeze(self, *paths):
        self._chattr("+i", paths)

    def thaw(self, *paths):
        self._chattr("-i", paths)


@pytest.fixture
def immutable_files(tmp_path):
    if os.geteuid() != 0 or shutil.which("chattr") is None:
        pytest.skip("needs root and chattr to make a file read-only for root")
    probe = tmp_path / "chattr-probe"
    probe.write_bytes(b"x")
    if subprocess.run(["chattr", "+i", str(probe)], capture_output=True).returncode != 0:
        pytest.skip(f"the file system of {tmp_path} has no immutable flag")
    subprocess.run(["chattr", "-i", str(probe)], check=True)
    files = ImmutableFiles()
    yield files
    # Always undone, or the temporary directory could not be removed.
    for path in files.touched:
        subprocess.run(["chattr", "-i", path], capture_output=True)
