"""The engine's WebAssembly module stays small enough to send with the page: at most 150 KB, and
60 KB gzipped (docs/wasm.md, "Size"). A size is a property of the built file, not a timing, so it
is checked on every `make test`, which builds the module first."""

from __future__ import annotations

from wasm_crosscheck import WASM
from wasm_size import MAX_BYTES, MAX_GZIPPED, describe_sizes, module_sizes


def test_the_module_is_within_its_size_targets():
    assert WASM.exists(), f"{WASM} is missing: `make` builds it (scripts/build-wasm.sh)"
    plain, gzipped = module_sizes(WASM)
    assert plain <= MAX_BYTES and gzipped <= MAX_GZIPPED, (
        f"{WASM.name} is {describe_sizes(WASM)}: docs/wasm.md, 'Size', lists where the bytes go "
        "and how to find what grew (an unstripped link and its name section)")
