"""Several messages to one connection in one write (CorkedWrite.swift), decoded by Python's
`websockets`: the server's echo endpoint (`scrollcast --conformance-echo`) queues its replies,
so a burst of messages sent in one go comes back framed together by the server; every reply,
across the 125/126 and 65,535/65,536 length edges, text and binary, must come back whole and in
order."""

from __future__ import annotations

import asyncio
import os
import re
import subprocess

from websockets.asyncio.client import connect

from server_helpers import run, stop_process

SIZES = [0, 1, 124, 125, 126, 127, 1000, 65_535, 65_536, 70_000, 2, 125, 126]


def message(index: int, size: int) -> str | bytes:
    if index % 2 == 0:
        return chr(ord("a") + index % 26) * size
    return bytes((i * 31 + index) & 0xFF for i in range(size))


def test_a_burst_of_echoes_across_the_length_edges_comes_back_whole_and_in_order():
    proc = subprocess.Popen([os.environ["SCROLLCAST_BIN"], "--host", "127.0.0.1", "--port", "0", "--conformance-echo",
                             "--log-level", "warning"], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        port = None
        while port is None:
            line = proc.stdout.readline()
            assert line, "the server did not start"
            match = re.search(r"listening on http://[^:]+:(\d+)", line)
            port = match and match.group(1)

        async def scenario():
            async with connect(f"ws://127.0.0.1:{port}/echo", max_size=2**20, compression=None) as ws:
                sent = [message(i, size) for i, size in enumerate(SIZES)] * 3
                # All at once: the server reads several in one pass and its replies queue up.
                await asyncio.gather(*(ws.send(m) for m in sent))
                received = [await asyncio.wait_for(ws.recv(), 10) for _ in sent]
                return sent, received

        sent, received = run(scenario())
        assert [type(m) for m in received] == [type(m) for m in sent]
        mismatched = [i for i, (a, b) in enumerate(zip(sent, received)) if a != b]
        assert not mismatched, f"replies {mismatched} differ (sizes {[len(received[i]) for i in mismatched]})"
    finally:
        stop_process(proc)
