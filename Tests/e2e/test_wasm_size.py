"""The engine's WebAssembly module stays small enough to send with the page: the target is at most
150 KB, and 60 KB gzipped (docs/wasm.md, "Size"). A size is a property of the built file, not a
timing, so it is checked on every `make test`, which builds the module first."""

from __future__ import annotations

import pytest

from wasm_crosscheck import WASM
from wasm_size import CEILING_BYTES, CEILING_GZIPPED, MAX_BYTES, MAX_GZIPPED, describe_sizes, module_sizes

HOW_TO_LOOK = "docs/wasm.md, 'Size', lists where the bytes go and how to find what grew"


@pytest.fixture(autouse=True)
def module_built():
    assert WASM.exists(), f"{WASM} is missing: `make` builds it (scripts/build-wasm.sh)"


def test_the_module_is_within_its_size_targets():
    plain, gzipped = module_sizes(WASM)
    assert plain <= MAX_BYTES and gzipped <= MAX_GZIPPED, f"{WASM.name} is {describe_sizes(WASM)}: {HOW_TO_LOOK}"


def test_the_module_does_not_grow_past_its_ceiling():
    plain, gzipped = module_sizes(WASM)
    assert plain <= CEILING_BYTES and gzipped <= CEILING_GZIPPED, (
        f"{WASM.name} is {describe_sizes(WASM)}, above its ceiling of {CEILING_BYTES} bytes and "
        f"{CEILING_GZIPPED} gzipped: {HOW_TO_LOOK}")
