"""A real cluster for the e2e tests (docs/cluster.md): its own redis-server on a free loopback
port in a temp dir, and scrollcast nodes joined to it with `--redis` and `--node-id`."""

from __future__ import annotations

import asyncio
import hashlib
import time

from server_helpers import RunningServer, Viewer


class Cluster:
    """Nodes n0, n1, … of one cluster on `redis` (a redis_helpers.RedisServer)."""

    def __init__(self, server_factory, redis, nodes: int = 3, flags: tuple[str, ...] = (),
                 urls: dict[int, str] | None = None):
        """`urls`: a node's own `--redis` URL by index (a relay in front of `redis`, say)."""
        self.redis = redis
        self.flags = flags
        self.urls = urls or {}
        self.server_factory = server_factory
        self.nodes: list[RunningServer] = [self.start_node(i) for i in range(nodes)]

    def start_node(self, index: int, port: int = 0) -> RunningServer:
        return self.server_factory("--redis", self.urls.get(index, self.redis.url), "--node-id", f"n{index}",
                                   "--allowed-origins", "*", *self.flags)

    def ws(self, index: int) -> str:
        return self.nodes[index].ws_url

    def lease(self, room: str) -> tuple[str, int] | None:
        """(node id, epoch) of the room's lease, as Redis holds it; None when nobody holds it."""
        value = self.redis.command("GET", f"scrollcast:room:{room}:lease")
        if not value:
            return None
        node, _, epoch = value.rpartition("|")
        return node, int(epoch)

    def owner_index(self, room: str) -> int | None:
        lease = self.lease(room)
        return int(lease[0][1:]) if lease else None

    async def until_owner(self, room: str, predicate, timeout: float = 10.0) -> tuple[str, int]:
        """Polls the lease every 20 ms until predicate((node, epoch)) holds; returns it."""
        deadline = time.monotonic() + timeout
        while True:
            lease = await asyncio.get_running_loop().run_in_executor(None, self.lease, room)
            if lease and predicate(lease):
                return lease
            if time.monotonic() > deadline:
                raise AssertionError(f"lease of {room} stayed {lease}")
            await asyncio.sleep(0.02)  # polling interval of the condition above

    async def until_redis_settled(self, lease_seconds: int = 3):
        """Waits (polling every 50 ms) until Redis has been up for a lease length: before that, a
        claim waits out a holder whose node lost its subscription instead of taking the room at
        once (docs/cluster.md, "Failover"), because after a Redis restart nodes are still
        subscribing again."""
        deadline = time.monotonic() + lease_seconds + 10
        while True:
            info = await asyncio.get_running_loop().run_in_executor(None, self.redis.command, "INFO", "server")
            uptime = int(next(line.split(":")[1] for line in info.splitlines() if line.startswith("uptime_in_seconds:")))
            if uptime >= lease_seconds:
                return
            if time.monotonic() > deadline:
                raise AssertionError(f"Redis uptime stayed at {uptime} s")
            await asyncio.sleep(0.05)  # polling interval of the condition above

    def stored_order(self, room: str) -> list[list[int]]:
        text = self.redis.command("HGET", f"scrollcast:room:{room}", "order")
        return [[int(row) for row in section.split(",") if row] for section in text.split(";")] if text else []


async def join_on_every_node(cluster: Cluster, room: str, protocol: str = "v1") -> list[Viewer]:
    """One viewer per node, joined in node order (so n0 creates and runs the room), each holding
    its snapshot."""
    viewers = []
    for index in range(len(cluster.nodes)):
        viewer = await Viewer.join(cluster.ws(index), room, protocol=protocol)
        await viewer.wait_type("snapshot")
        viewers.append(viewer)
    return viewers


def frame_bytes_by_seq(viewer: Viewer) -> dict[int, str | bytes]:
    return {obj["seq"]: raw for raw, obj in viewer.received if obj.get("type") == "frame"}


def digest_by_seq(viewer: Viewer) -> dict[int, str]:
    """A hash of each frame's bytes, by seq (what scrollcast-load compares across nodes)."""
    out = {}
    for seq, raw in frame_bytes_by_seq(viewer).items():
        out[seq] = hashlib.sha256(raw.encode() if isinstance(raw, str) else raw).hexdigest()
    return out
