"""`scrollcast-load --link PROFILE`: the load runs through the link emulator in-process, and the
report gives the link, the emulator's own timing error and the frames' inter-arrival jitter."""

from __future__ import annotations

import json

from test_load_smoke import run_load


def load_report(server, tmp_path, *args: str) -> dict:
    path = tmp_path / "load.json"
    result = run_load("--url", server.ws_url, "--rooms", "2", "--viewers", "3", "--drivers", "1",
                      "--script", "fling", "--duration", "2", "--json", str(path), *args)
    assert result.returncode == 0, result.stderr
    return json.loads(path.read_text()) | {"table": result.stdout}


def test_load_through_4g_reports_the_link_and_sees_its_delay(server_factory, tmp_path):
    server = server_factory()
    report = load_report(server, tmp_path, "--link", "4g", "--room-prefix", "link4g")
    link = report["link"]
    assert link["profile"] == "4g" and "40 ms + 0–20 ms" in link["model"]
    assert link["chunksUp"] > 0 and link["chunksDown"] > 0
    error = link["timingErrorUs"]
    assert error["count"] == link["chunksUp"] + link["chunksDown"] and error["p50"] <= error["p99"] <= error["max"]
    # Input up and frame down each cross the 40 ms link: never faster than 80 ms.
    assert report["latencyMs"]["p50"] >= 80
    assert report["url"] == server.ws_url, "the report names the server, not the emulator in front of it"
    jitter = report["interArrivalJitterMs"]
    assert jitter["count"] > 0 and jitter["p50"] <= jitter["p99"]
    assert "link timing error p50 / p99 / max" in report["table"] and "4g (40 ms" in report["table"]


def test_load_without_a_link_reports_none_and_loopback_jitter(server_factory, tmp_path):
    server = server_factory()
    report = load_report(server, tmp_path, "--room-prefix", "nolink")
    assert report["link"] is None and "none (direct)" in report["table"]
    assert report["interArrivalJitterMs"]["count"] > 0


def test_an_unknown_link_profile_is_refused():
    result = run_load("--url", "ws://127.0.0.1:1/ws", "--link", "5g")
    assert result.returncode == 64 and "unknown --link '5g'" in result.stderr
