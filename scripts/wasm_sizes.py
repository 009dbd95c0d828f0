#!/usr/bin/env python3
"""Where the WebAssembly engine's bytes go (docs/wasm.md, "Size").

Usage:
    WASM_NAMES=1 scripts/build-wasm.sh /tmp/named.wasm     # the module with its function names
    scripts/wasm_sizes.py /tmp/named.wasm                  # the largest functions by own size
    scripts/wasm_sizes.py /tmp/named.wasm --retained       # by retained size
    scripts/wasm_sizes.py /tmp/named.wasm --callers TEXT   # who calls the functions named TEXT

A function's *retained* size is what leaves the module with it: the code of every function that
only it (directly or not) keeps reachable from the exports and the indirect-call table. Sizes are
of function bodies in bytes; names are demangled with the toolchain's `swift-demangle`. Needs
`wasm-objdump` (Debian's `wabt`, installed by scripts/install-deps.sh).
"""

from __future__ import annotations

import argparse
import re
import shutil
import subprocess
from collections import defaultdict
from pathlib import Path

FUNCTION = re.compile(r"^([0-9a-f]+) func\[(\d+)\] <(.*)>:")
CALL = re.compile(r"\bcall (\d+)\b")


def objdump(path: Path, *flags: str) -> str:
    return subprocess.run(["wasm-objdump", *flags, str(path)], check=True, capture_output=True, text=True).stdout


class Module:
    """Functions (start offset, size, name) and the direct call graph of a named module."""

    def __init__(self, path: Path):
        self.start: dict[int, int] = {}
        self.mangled: dict[int, str] = {}
        self.calls: dict[int, set[int]] = defaultdict(set)
        current = None
        for line in objdump(path, "-d").splitlines():
            if m := FUNCTION.match(line):
                current = int(m.group(2))
                self.start[current], self.mangled[current] = int(m.group(1), 16), m.group(3)
            elif current is not None and "call_indirect" not in line and (c := CALL.search(line)):
                self.calls[current].add(int(c.group(1)))
        code_end = int(re.search(r" Code start=0x[0-9a-f]+ end=0x([0-9a-f]+)", objdump(path, "-h")).group(1), 16)
        order = sorted(self.start, key=self.start.get)
        ends = [self.start[f] for f in order[1:]] + [code_end]
        self.size = {f: end - self.start[f] for f, end in zip(order, ends)}
        details = objdump(path, "-x")
        self.roots = {int(m.group(1)) for m in re.finditer(r"func\[(\d+)\] <[^>]*> -> \"", details)}
        self.roots |= {int(m.group(1)) for m in re.finditer(r"elem\[\d+\] = (?:func\[|ref\.func:)(\d+)", details)}
        self.name = dict(zip(order, demangle([self.mangled[f] for f in order])))

    def reachable(self, without: int | None = None) -> set[int]:
        seen: set[int] = set()
        stack = [r for r in self.roots if r != without]
        while stack:
            f = stack.pop()
            if f in seen or f == without:
                continue
            seen.add(f)
            stack.extend(self.calls.get(f, ()))
        return seen

    def code_size(self, functions: set[int]) -> int:
        return sum(self.size.get(f, 0) for f in functions)


def demangle(names: list[str]) -> list[str]:
    tool = shutil.which("swift-demangle")
    if not tool:
        return names
    out = subprocess.run([tool, "--simplified"], input="\n".join(names), capture_output=True, text=True).stdout
    lines = out.splitlines()
    return lines if len(lines) == len(names) else names


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("module", type=Path)
    parser.add_argument("--retained", action="store_true", help="sort by retained size")
    parser.add_argument("--callers", metavar="TEXT", help="functions whose name contains TEXT, and their callers")
    parser.add_argument("--top", type=int, default=40)
    args = parser.parse_args()
    module = Module(args.module)
    live = module.reachable()
    total = module.code_size(live)
    print(f"code {total} bytes in {len(live)} functions reachable from {len(module.roots)} roots")
    if args.callers:
        for f in sorted(module.size, key=lambda f: -module.size[f]):
            if args.callers in module.name[f]:
                print(f"{module.size[f]:7d} {module.name[f]}")
                for g, callees in module.calls.items():
                    if f in callees:
                        print(f"        <- {module.name[g]}")
        return
    if args.retained:
        rows = [(total - module.code_size(module.reachable(without=f)), f) for f in module.size]
        print("retained    own  function")
        for retained, f in sorted(rows, reverse=True)[:args.top]:
            print(f"{retained:8d} {module.size[f]:6d}  {module.name[f][:160]}")
        return
    print("    own  function")
    for f in sorted(module.size, key=lambda f: -module.size[f])[:args.top]:
        print(f"{module.size[f]:7d}  {module.name[f][:160]}")


if __name__ == "__main__":
    main()
