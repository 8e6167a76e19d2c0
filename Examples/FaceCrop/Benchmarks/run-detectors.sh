#!/usr/bin/env bash
# Builds detectors.cpp against Debian's OpenCV, dlib and libvips, composes the labelled
# set, and prints each detector's detection rate, false positives and ms per photo.
#   Examples/FaceCrop/Benchmarks/run-detectors.sh [WORK_DIR]
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
work=${1:-"$(mktemp -d)"}
if [ ! -d /usr/include/dlib ] || [ ! -d /usr/include/opencv4 ]; then
  echo "run-detectors: needs Debian's libdlib-dev and libopencv-dev (apt-get install them)" >&2
  exit 1
fi
[ -s "$work/labels.txt" ] || "$here/make-labelled-set.sh" "$work"
g++ -std=c++17 -O2 -o "$work/detectors" "$here/detectors.cpp" \
  $(pkg-config --cflags vips opencv4 dlib-1) $(pkg-config --libs vips) -ldlib -l:liblapack.so.3 -l:libblas.so.3 \
  -lopencv_objdetect -lopencv_imgproc -lopencv_core
"$work/detectors" "$work"
