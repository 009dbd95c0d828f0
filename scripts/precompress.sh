#!/usr/bin/env bash
# Makes the compressed copies the server sends to browsers that accept them (docs/design.md,
# "Static files"): for each text file under SRC (default Public) but the HTML pages (which the
# server sends as it writes versions into them), DST/<path>.gz (gzip -9) and,
# where the `brotli` CLI is installed, DST/<path>.br (quality 11), DST defaulting to
# .build/public-encoded. Only copies missing or older than their file are made again; each is
# written beside and renamed into place, so the server never reads half a copy. A copy that is
# not smaller than its file is not kept, and copies whose file is gone are removed.
set -euo pipefail
cd "$(dirname "$0")/.."
SRC=${1:-Public}
DST=${2:-.build/public-encoded}
mkdir -p "$DST"

have_brotli=0
command -v brotli >/dev/null && have_brotli=1
made=0

# make_copy FILE COPY COMMAND...: COMMAND reads FILE on stdin and writes the copy on stdout.
make_copy() {
  local file=$1 copy=$2; shift 2
  [ "$copy" -nt "$file" ] && return 0
  mkdir -p "$(dirname "$copy")"
  "$@" <"$file" >"$copy.tmp"
  if [ "$(stat -c %s "$copy.tmp")" -lt "$(stat -c %s "$file")" ]; then
    mv -f "$copy.tmp" "$copy"
    made=$((made + 1))
  else
    rm -f "$copy.tmp" "$copy"
  fi
}

while IFS= read -r -d '' file; do
  relative=${file#"$SRC"/}
  make_copy "$file" "$DST/$relative.gz" gzip -9 -n -c
  if ((have_brotli)); then make_copy "$file" "$DST/$relative.br" brotli -q 11 -c; fi
done < <(find "$SRC" -type f \( -name '*.css' -o -name '*.js' -o -name '*.mjs' -o -name '*.json' \
                               -o -name '*.svg' -o -name '*.wasm' -o -name '*.txt' -o -name '*.map' \) -print0)

# Copies of files that are gone, and of pages (made before pages were left out): the server
# would never send them, but they would linger.
while IFS= read -r -d '' copy; do
  relative=${copy#"$DST"/}
  original=${relative%.*}
  if [ ! -f "$SRC/$original" ] || [[ $original == *.html ]]; then rm -f "$copy"; fi
done < <(find "$DST" -type f \( -name '*.gz' -o -name '*.br' -o -name '*.tmp' \) -print0)

((have_brotli)) || echo "precompress: no brotli CLI (apt-get install brotli): gzip copies only" >&2
echo "precompress: $made copies made in $DST"
