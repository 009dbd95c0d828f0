"""`--redis` and `--node-id` (docs/cluster.md): bad values stop the server with a message naming
the flag; a node announces its port once its links to Redis are up, so its first join is
served; a node whose Redis is not up yet starts anyway after a bounded wait, closes joins with
1013 until it can reach Redis, and serves rooms once it can."""

from __future__ import annotations

import asyncio
import os
import subprocess
import time

from redis_helpers import RedisServer, free_port
from redis_relay import RedisRelay
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
                deadline = time.monotonic() + 10
                while time.monotonic() < deadline:
                    viewer = await Viewer.join(node.ws_url, "waiting")
                    try:
                        await viewer.wait_type("snapshot", timeout=5)
                        await viewer.close()
                        return
                    except AssertionError:
                        assert viewer.close_code == 1013, (viewer.close_code, viewer.close_reason)
                    await asyncio.sleep(0.05)  # the retry interval of a polling client
                raise AssertionError("never served in 10 s")
            run(served())
            assert node.proc.poll() is None
        finally:
            redis.close()
    finally:
        node.stop()


def test_a_node_announces_its_port_once_redis_answers_so_its_first_join_is_served(redis_server):
    # Redis answers each new connection 0.5 s late: a node that announced its port before its
    # links were up refused this join with 1013 (seen once in the suite, under load).
    relay = RedisRelay(redis_server.port, reply_delay=0.5)
    node = RunningServer("--redis", relay.url, "--node-id", "n0")
    try:
        async def first_join():
            viewer = await Viewer.join(node.ws_url, "first")
            await viewer.wait_type("snapshot", timeout=5)
            await viewer.close()
        run(first_join())
        assert not [line for line in node.stderr_lines if "Redis does not answer yet" in line]
    finally:
        node.stop()
        relay.close()
