import os, subprocess

def test_server_binary_runs():
    out = subprocess.run([os.environ["SCROLLCAST_BIN"]], capture_output=True, text=True, timeout=30)
    assert out.returncode == 0
