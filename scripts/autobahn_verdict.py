"""Reads Autobahn's index.json and fails on any FAILED case that is not explicitly accepted.

wstest exits 0 whatever happened, and writes an empty index when it could not connect, so the
verdict has to come from the report itself.
"""
import collections
import json
import sys

EXPECTED_AT_LEAST = 250  # sections 1-7 and 9 select 301 cases in Autobahn 25.10.1

def main(path, accepted):
    with open(path) as f:
        index = json.load(f)
    results = {case: r for agent in index.values() for case, r in agent.items()}
    counts = collections.Counter(r["behavior"] for r in results.values())
    print(f"{len(results)} cases:", ", ".join(f"{k}={counts[k]}" for k in sorted(counts)))
    failed = sorted(c for c, r in results.items() if r["behavior"] == "FAILED" or r.get("behaviorClose") == "FAILED")
    tolerated = [c for c in failed if c in accepted]
    bad = [c for c in failed if c not in accepted]
    if tolerated:
        print("accepted (see docs/reliability.md):", *tolerated)
    if bad:
        print("FAILED:", *bad)
    if len(results) < EXPECTED_AT_LEAST:
        print(f"only {len(results)} cases ran; expected at least {EXPECTED_AT_LEAST}")
        return 1
    return 1 if bad else 0

if __name__ == "__main__":
    sys.exit(main(sys.argv[1], set(sys.argv[2:])))
