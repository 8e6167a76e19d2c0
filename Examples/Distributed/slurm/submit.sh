#!/usr/bin/env bash
# Submits a sharded render to Slurm: a job array of N render tasks, and a merge job
# that starts when all of them succeeded (and is cancelled if one failed).
#
#   Examples/Distributed/slurm/submit.sh [--wait] SHARDS FAMILY OUTPUT PHOTOS...
#
# Paths must be on storage every node sees (absolute paths are best). IMGTOOL names
# the imgtool the nodes run (default: imgtool on PATH). With --wait the script returns
# when the merge has finished, with its exit status.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)

wait=()
if [ "${1:-}" = "--wait" ]; then
  wait=(--wait)
  shift
fi
if [ $# -lt 4 ]; then
  echo "usage: $0 [--wait] SHARDS FAMILY OUTPUT PHOTOS..." >&2
  exit 64
fi
shards=$1 family=$2
output=$(realpath -m "$3")
shift 3
photos=()
for photo in "$@"; do photos+=("$(realpath "$photo")"); done
work="$output.shards"
rm -rf "$work"
mkdir -p "$work"
export IMGTOOL=${IMGTOOL:-$(command -v imgtool)} FAMILY=$family WORK=$work OUTPUT=$output \
  SHARDS=$shards

render=$(sbatch --parsable --array="0-$((shards - 1))" --chdir="$work" \
  --export=ALL "$here/render-array.sbatch" "${photos[@]}")
echo "submit.sh: render array job $render ($shards tasks)" >&2
merge=$(sbatch --parsable --dependency="afterok:${render%%;*}" --kill-on-invalid-dep=yes \
  --chdir="$work" --export=ALL "${wait[@]}" "$here/merge.sbatch")
echo "submit.sh: merge job ${merge%%;*} after it; logs in $work" >&2
