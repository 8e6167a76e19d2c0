#!/usr/bin/env bash
# Makes the seed corpus from a real rendered table: corpus/seed = length | table | index.
set -euo pipefail
cd "$(dirname "$0")"
work="$(mktemp -d)"
../.build/release/imgtool render --family avatar --cache "$work" --quiet ../Examples/Photos
mkdir -p corpus
python3 - "$work/avatar.small.table" "$work/avatar.small.index" corpus/seed <<'PY'
import struct, sys
table = open(sys.argv[1], "rb").read()
index = open(sys.argv[2], "rb").read()
open(sys.argv[3], "wb").write(struct.pack("<I", len(table)) + table + index)
PY
rm -rf "$work"
