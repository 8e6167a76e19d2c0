#!/usr/bin/env bash
# Runs the sharded render on the current kubectl context: the Indexed Job, then,
# once every index has completed, the merge Job. Needs the image imgtool:0.1.0
# (Dockerfile here) and the volumes of volumes.yaml, with the photos on imgtool-photos.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
timeout=${TIMEOUT:-6h}

kubectl delete job imgtool-render imgtool-merge --ignore-not-found
kubectl apply -f "$here/render-job.yaml"
# Kubernetes has no job dependencies: wait here for every index to complete.
if ! kubectl wait --for=condition=complete --timeout="$timeout" job/imgtool-render; then
  echo "run.sh: the render did not complete; no merge. See: kubectl logs job/imgtool-render" >&2
  exit 1
fi
kubectl apply -f "$here/merge-job.yaml"
kubectl wait --for=condition=complete --timeout="$timeout" job/imgtool-merge
kubectl logs job/imgtool-merge
