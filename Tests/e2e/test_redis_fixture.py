"""The redis_server fixture (redis_helpers.py) does what the cluster tests rely on: a real,
private redis-server whose data comes back after a clean stop or a SIGKILL, and that is really
gone when killed."""

import socket

import pytest

from redis_helpers import RedisServer


def test_commands_reach_a_private_server(redis_server):
    assert redis_server.port != 6379, "never the system's service"
    assert redis_server.url == f"redis://127.0.0.1:{redis_server.port}"
    assert redis_server.command("set", "room:x", "hello") == "OK"
    assert redis_server.command("get", "room:x") == "hello"
    assert redis_server.command("config", "get", "appendonly").splitlines() == ["appendonly", "yes"]
    assert redis_server.command("config", "get", "dir").splitlines()[1] == str(redis_server.dir)


def test_data_survives_a_stop_and_a_kill_through_the_append_only_file(redis_server):
    port = redis_server.port
    redis_server.command("set", "before-stop", "1")
    redis_server.stop()
    redis_server.restart()
    assert redis_server.port == port
    assert redis_server.command("get", "before-stop") == "1"

    # No RDB snapshots are taken (--save ""), so after SIGKILL only the AOF can bring these back.
    redis_server.command("rpush", "before-kill", "a", "b")
    redis_server.kill()
    redis_server.restart()
    assert redis_server.command("lrange", "before-kill", "0", "-1").splitlines() == ["a", "b"]
    assert redis_server.command("get", "before-stop") == "1"


def test_a_killed_server_refuses_connections(redis_server):
    redis_server.command("set", "k", "v")
    redis_server.kill()
    assert not redis_server.running
    with pytest.raises(ConnectionRefusedError):
        socket.create_connection(("127.0.0.1", redis_server.port), timeout=2).close()
    with pytest.raises(RuntimeError, match="failed"):
        redis_server.command("ping")


def test_close_removes_its_directory():
    server = RedisServer()
    directory = server.dir
    assert (directory / "appendonlydir").is_dir()
    server.close()
    assert not server.running
    assert not directory.exists()
