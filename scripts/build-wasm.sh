#!/usr/bin/env bash
# Compiles the engine, the v2 frame encoder and the replica (Sources/ScrollEngine, ScrollWire,
# ScrollReplica) with the boundary (Wasm/Exports.swift) into the page's WebAssembly module,
# with Embedded Swift from the toolchain and Debian's wasi-libc; wasm-opt (binaryen) shrinks it.
# No download. Usage: scripts/build-wasm.sh OUTPUT.wasm   (docs/wasm.md)
#        scripts/build-wasm.sh --compile-only   compiles the modules and stops before the link:
# it needs the toolchain alone, none of Debian's packages, so `make demo` runs it while apt installs
# them (docs/benchmarks.md, "make demo on a fresh machine").
set -euo pipefail
cd "$(dirname "$0")/.."
COMPILE_ONLY=0
if [ "${1:-}" = --compile-only ]; then COMPILE_ONLY=1; shift; fi
OUT=${1:-Public/wasm/scrollcast-engine.wasm}
WORK=.build/wasm
WASI=/usr/lib/wasm32-wasi
mkdir -p "$WORK" "$(dirname "$OUT")"
SWIFTC=${SWIFTC:-swiftc}
SWIFT_LIB=$(dirname "$(command -v "$SWIFTC")")/../lib/swift
# String comparison and hashing need the standard library's Unicode tables; 64-bit multiplies
# with overflow checks need compiler-rt's __multi3 (Debian's libclang-rt-14-dev-wasm32).
UNICODE=$SWIFT_LIB/embedded/wasm32-unknown-none-wasm/libswiftUnicodeDataTables.a
# (`|| true`: before apt has installed it, --compile-only must not stop on ls's failure.)
BUILTINS=$(ls /usr/lib/llvm-*/lib/clang/*/lib/wasi/libclang_rt.builtins-wasm32.a 2>/dev/null | head -1 || true)
WASM_LD=${WASM_LD:-$(dirname "$(command -v "$SWIFTC")")/wasm-ld}
CLANG=${CLANG:-$(dirname "$(command -v "$SWIFTC")")/clang}
[ -f "$UNICODE" ] || { echo "build-wasm: $UNICODE is missing: the Swift toolchain has no Embedded Swift for wasm32" >&2; exit 1; }
# -lto=llvm-full makes each object LLVM bitcode, so wasm-ld optimises the four modules as one
# program: code specialised or inlined in several modules is kept once, and what no export
# reaches goes (what it saves: docs/wasm.md, "Size").
FLAGS=(-target wasm32-unknown-none-wasm -lto=llvm-full -enable-experimental-feature Embedded
       -enable-experimental-feature Extern -Xfrontend -disable-stack-protector
       -wmo -Osize -parse-as-library -package-name scrollcast -I "$WORK")

# Each module is rebuilt only when one of its sources, a module it imports, or this script is
# newer than its object file.
module() { # NAME "IMPORTED MODULES" SOURCES...
  local name=$1 imports=$2; shift 2
  local inputs=("$@" "$0") m
  for m in $imports; do inputs+=("$WORK/$m.o"); done
  if [ -f "$WORK/$name.o" ] && [ -z "$(find "${inputs[@]}" -newer "$WORK/$name.o" | head -1)" ]; then return; fi
  echo "build-wasm: compiling $name"
  "$SWIFTC" "${FLAGS[@]}" -module-name "$name" -emit-module -emit-module-path "$WORK/$name.swiftmodule" \
    -c "$@" -o "$WORK/$name.o.tmp"
  mv "$WORK/$name.o.tmp" "$WORK/$name.o"
}
module ScrollEngine "" $(find Sources/ScrollEngine -name '*.swift' | sort)
module ScrollWire "ScrollEngine" $(find Sources/ScrollWire -name '*.swift' | sort)
module ScrollReplica "ScrollEngine ScrollWire" $(find Sources/ScrollReplica -name '*.swift' | sort)
module ScrollcastEngineWasm "ScrollEngine ScrollWire ScrollReplica" Wasm/*.swift
# The module's own allocator (its comment says why), in place of wasi-libc's dlmalloc.
if [ ! -f "$WORK/allocator.o" ] || [ -n "$(find Wasm/allocator.c "$0" -newer "$WORK/allocator.o" | head -1)" ]; then
  echo "build-wasm: compiling allocator"
  "$CLANG" --target=wasm32-unknown-unknown -Oz -flto -Wall -Werror -c Wasm/allocator.c -o "$WORK/allocator.o"
fi
((COMPILE_ONLY)) && exit 0
for f in "$WASI/libc.a" "$WASI/libm.a" "$BUILTINS"; do
  [ -f "$f" ] || { echo "build-wasm: ${f:-libclang_rt.builtins-wasm32.a} is missing: run scripts/install-deps.sh" >&2; exit 1; }
done

EXPORTS=(scrollcast_input scrollcast_output scrollcast_create scrollcast_restore scrollcast_order
         scrollcast_apply scrollcast_frame scrollcast_texts_length scrollcast_content_offset
         scrollcast_is_animating)
EXPORTS+=(scrollcast_create_scene)   # a file or uploaded scene from its bytes (Wasm/Exports+Scene.swift)
# WASM_NAMES=1 keeps the function names (the name section) for scripts/wasm_sizes.py, which
# lists what each function costs and what keeps it in the module (docs/wasm.md, "Size").
STRIP=(--strip-all); KEEP=(--strip-debug)
if [ -n "${WASM_NAMES:-}" ]; then STRIP=(); KEEP=(-g); fi
"$WASM_LD" --no-entry "${STRIP[@]}" --gc-sections --trace "${EXPORTS[@]/#/--export=}" \
  "$WORK"/ScrollEngine.o "$WORK"/ScrollWire.o "$WORK"/ScrollReplica.o "$WORK"/ScrollcastEngineWasm.o "$WORK/allocator.o" \
  "$WASI/libc.a" "$WASI/libm.a" "$UNICODE" "$BUILTINS" -o "$WORK/linked.wasm" > "$WORK/linked.trace"
# The engine computes its own exp, log and pow (EngineMath: the same bits natively and here, by
# construction; docs/wasm.md, "The engine's own math"). wasi-libc keeps its math in libc.a, so a
# call that reached the C library's would link silently: refuse any transcendental member.
# (`round`, an exact operation, may link: Double.rounded's half-away-from-zero has no instruction.)
if grep -E '\((a?(sin|cos|tan)h?|atan2|sincos|exp|exp2|expm1|log|log2|log10|log1p|pow|cbrt|hypot|erfc?|[lt]gamma)[fl]?(_data)?\.o\)' "$WORK/linked.trace" >&2; then
  echo "build-wasm: the C library's transcendental functions above were linked in: the engine must use EngineMath" >&2
  exit 1
fi
if command -v wasm-opt >/dev/null; then
  # Passes run in the order given: stripping before -Oz, not after, leaves a smaller module
  # (docs/wasm.md, "Size").
  wasm-opt "${KEEP[@]}" --strip-producers --enable-bulk-memory --enable-sign-ext --enable-nontrapping-float-to-int \
    --enable-mutable-globals -Oz --converge "$WORK/linked.wasm" -o "$OUT.tmp"
else
  echo "build-wasm: wasm-opt (binaryen) not found; the module is not shrunk" >&2
  cp "$WORK/linked.wasm" "$OUT.tmp"
fi
mv "$OUT.tmp" "$OUT"
echo "build-wasm: $OUT $(stat -c %s "$WORK/linked.wasm") bytes linked, $(stat -c %s "$OUT") after wasm-opt, $(gzip -9c < "$OUT" | wc -c) gzipped"
