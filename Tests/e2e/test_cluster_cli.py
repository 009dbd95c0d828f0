"""`--redis` and `--node-id` (docs/cluster.md): bad values stop the server with a message naming
the flag; a node whose Redis is not up yet starts anyway, closes joins with 1013 until it can
reach Redis, and serves rooms once it can."""

from __future__ import annotations

import os
import subprocess

from redis_helpers import RedisServer, free_port
from server_helpers import RunningServer, Viewer, run


def refuse(*flags: str) -> str:
    binary = os.environ["SCROLLCAST_BIN"]
    done = subprocess.run([binary, "--port", "0", *flags], capture_output=True, text=True, timeout=30)
    assert done.returncode == 64, (done.returncode, done.stderr)
    return done.stderr


def test_bad_cluster_flags_are_refused_with_the_flag_named():
    assert "--redis" in refuse("--redis", "http://127.0.0.1:6379", "--node-id", "a")
    assert "--redis" in refuse("--redis", "redis://127.0.0.1:notaport", "--node-id", "a")
    assert "needs --node-id" in refuse("--redis", "redis://127.0.0.1:6379")
    assert "only with --redis" in refuse("--node-id", "a")
    assert "--node-id must be" in refuse("--redis", "redis://127.0.0.1:6379", "--node-id", "a|b")


def test_a_node_waits_for_its_redis_and_serves_once_it_answers(tmp_path):
    port = free_port()
    node = RunningServer("--redis", f"redis://127.0.0.1:{port}", "--node-id", "n0")
    try:
        async def refused():
            viewer = await Viewer.join(node.ws_url, "waiting")
            code, reason = await viewer.wait_closed()
            assert code == 1013 and "cluster unavailable" in reason
        run(refused())
        redis = RedisServer(port=port)
        try:
            async def served():
                # The node reconnects by itself (backoff up to 1 s); the page would retry like this.
                for _ in range(100):
                    viewer = await Viewer.join(node.ws_url, "waiting")
                    try:
                        await viewer.wait_type("snapshot", timeout=5)
                        await viewer.close()
                        return
                    except AssertionError:
                        assert viewer.close_code == 1013, (viewer.close_code, viewer.close_reason)
                raise AssertionError("never served")
            run(served())
            assert node.proc.poll() is None
        finally:
            redis.close()
    finally:
        node.stop()
