"""WebSocket conformance: Autobahn|Testsuite's fuzzing client (sections 1-7 and 9) against the
server's echo endpoint (`scrollcast --conformance-echo`), through scripts/run-conformance.sh.

The script installs Autobahn on first use (about 35 s; Python 2.7 from Debian 11, see
/work/shared/conformance.md), runs about 300 cases (about a minute and a half) and fails on any
FAILED case except the two accepted in docs/reliability.md (2.10, 2.11).
"""

from __future__ import annotations

import json
import os
import re
import subprocess

import pytest

from server_helpers import REPO


@pytest.mark.long(100)
def test_autobahn_sections_1_to_7_and_9_pass(tmp_path):
    report = tmp_path / "autobahn"
    env = dict(os.environ, AUTOBAHN_REPORT=str(report))
    result = subprocess.run([str(REPO / "scripts" / "run-conformance.sh")], cwd=REPO, env=env,
                            capture_output=True, text=True, timeout=1200)
    assert result.returncode == 0, result.stdout + result.stderr
    summary = re.search(r"^(\d+) cases: (.*)$", result.stdout, re.M)
    assert summary, result.stdout
    index = json.loads((report / "index.json").read_text())
    results = {case: r for agent in index.values() for case, r in agent.items()}
    assert len(results) == int(summary.group(1)) >= 300
    failed = sorted(case for case, r in results.items() if r["behavior"] == "FAILED")
    assert set(failed) <= {"2.10", "2.11"}, failed
    # The big-message cases ran and passed: the 16 MiB limit holds only in echo mode.
    assert all(results[case]["behavior"] == "OK" for case in results if case.startswith("9."))
