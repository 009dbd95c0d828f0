"""What the benches read from /proc (a process's CPU time and memory, the machine) and the one
loop that reads it while `scrollcast-load` measures."""

from __future__ import annotations

import os
import platform
import time
from pathlib import Path
from typing import Callable, Iterable

CLOCK_TICKS = os.sysconf("SC_CLK_TCK")
# scrollcast-load prints a progress line a second on stderr (plain lines when stderr is a pipe)
# naming its phase; its report covers the lines that say this.
MEASURING = "measuring]"


def cpu_seconds(pid: int) -> float:
    """utime + stime of a process, in seconds (fields 14 and 15 of /proc/PID/stat)."""
    text = Path(f"/proc/{pid}/stat").read_text()
    # The command name may contain spaces; fields are counted after its closing parenthesis.
    fields = text[text.rindex(")") + 2:].split()
    return (int(fields[11]) + int(fields[12])) / CLOCK_TICKS


def rss_kib(pid: int) -> int:
    """Resident memory of a process (VmRSS of /proc/PID/status), in KiB."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    return 0


def load_average() -> float:
    """1-minute load average: other work on the machine competes with the server and the probe."""
    return float(Path("/proc/loadavg").read_text().split()[0])


def machine() -> dict:
    """Cores, memory, CPU model, kernel and load average, for a report's header."""
    model = "unknown"
    for line in Path("/proc/cpuinfo").read_text().splitlines():
        if line.startswith("model name"):
            model = line.split(":", 1)[1].strip()
            break
    mem_kib = 0
    for line in Path("/proc/meminfo").read_text().splitlines():
        if line.startswith("MemTotal:"):
            mem_kib = int(line.split()[1])
    return {"cores": os.cpu_count(), "memory_gib": round(mem_kib / 1024 / 1024, 1), "cpu": model,
            "kernel": platform.release(), "loadavg": load_average()}


class MeasuringWindow:
    """Reads every probe (name → a callable of no arguments, read in order) at each progress line
    of `scrollcast-load` that says it is measuring, so the first and last samples bound the
    window the load tool's report covers. A probe that fails (a process that just ended) drops
    that line's sample."""

    def __init__(self, probes: dict[str, Callable[[], float]]):
        self.probes = probes
        self.samples: list[tuple[float, dict[str, float]]] = []
        self.lines: list[str] = []

    def follow(self, lines: Iterable[str]) -> "MeasuringWindow":
        """Reads the load tool's stderr lines to their end, sampling at each measuring line."""
        for line in lines:
            self.lines.append(line)
            if MEASURING not in line:
                continue
            try:
                values = {name: probe() for name, probe in self.probes.items()}
            except (OSError, ValueError):
                continue
            self.samples.append((time.monotonic(), values))
        return self

    @property
    def complete(self) -> bool:
        """Whether two samples bound a window."""
        return len(self.samples) >= 2

    @property
    def seconds(self) -> float:
        return self.samples[-1][0] - self.samples[0][0] if self.complete else 0.0

    def first(self, name: str):
        return self.samples[0][1][name]

    def last(self, name: str):
        return self.samples[-1][1][name]

    def delta(self, name: str) -> float:
        """How much a probe grew over the window (0 without one)."""
        return self.samples[-1][1][name] - self.samples[0][1][name] if self.complete else 0.0

    def rate(self, name: str) -> float:
        """A probe's growth per second over the window: for CPU seconds, the cores kept busy."""
        return self.delta(name) / self.seconds if self.seconds > 0 else 0.0
