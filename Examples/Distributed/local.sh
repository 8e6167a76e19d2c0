#!/usr/bin/env bash
# Renders photos in N shards at once on this machine (xargs -P), then merges the
# shards' caches: what a batch engine does across machines, in miniature.
#
#   Examples/Distributed/local.sh SHARDS FAMILY OUTPUT PHOTOS...
#
# IMGTOOL names the imgtool to run (default: imgtool on PATH). Each shard writes its
# cache to OUTPUT.shards/shard-I; the merge writes OUTPUT. The exit status is that of
# the merge, or 1 when a shard named a bad photo (the others were still merged).
set -euo pipefail

if [ $# -lt 4 ]; then
  echo "usage: $0 SHARDS FAMILY OUTPUT PHOTOS..." >&2
  exit 64
fi
shards=$1 family=$2 output=$3
shift 3
imgtool=${IMGTOOL:-imgtool}
work="$output.shards"
rm -rf "$work"
mkdir -p "$work"

# One process per shard, all at once; each uses 1 job so N shards share the cores.
status=0
seq 0 $((shards - 1)) | xargs -P "$shards" -I{} \
  "$imgtool" render --family "$family" --shard "{}/$shards" --jobs 1 --quiet --json \
  --cache "$work/shard-{}" "$@" >"$work/renders.json" || status=$?
# xargs exits 123 when a shard exited 1 to 125 (a bad photo: named in its summary).
if [ "$status" -ne 0 ] && [ "$status" -ne 123 ]; then
  echo "local.sh: a shard failed (xargs status $status); nothing merged" >&2
  exit 1
fi

shard_caches=()
for ((i = 0; i < shards; i++)); do shard_caches+=("$work/shard-$i"); done
"$imgtool" merge --cache "$output" "${shard_caches[@]}"
if [ "$status" -ne 0 ]; then
  echo "local.sh: some photos failed; see $work/renders.json" >&2
  exit 1
fi
