#!/usr/bin/env bash
# Composes the labelled photos the face detectors are measured on (no downloads: the
# repository's and ../shared's photos, put together with libvips), and writes
# labels.txt: one line per photo, its file name, then x,y,w,h of each face in it.
#
# The only real face is the astronaut's (astronaut.png, 512x512, face at 176,66 95x95,
# as OpenCV's frontal Haar cascade finds it on the original): every positive is that one
# face, moved, scaled, mirrored or doubled on other photos' backgrounds. The negatives
# are every photo of ../shared/fixtures/photos without a human face.
#
#   Examples/FaceCrop/Benchmarks/make-labelled-set.sh OUT_DIR [PHOTOS_DIR]
set -euo pipefail
out=${1:?usage: make-labelled-set.sh OUT_DIR [PHOTOS_DIR]}
photos=${2:-"$(cd "$(dirname "$0")/../../.." && pwd)/../shared/fixtures/photos"}
mkdir -p "$out"
labels="$out/labels.txt"
: >"$labels"
face=(176 66 95 95)
astronaut="$photos/astronaut.png"
vips flip "$astronaut" "$out/mirrored.v" horizontal

# One face: the astronaut at three sizes, near the left or the right edge of a wide
# canvas, on five backgrounds; mirrored on the right.
backgrounds=(dune ladybird greenmeadow-progressive colorfulcups-icc kleiber-20mp)
for background in "${backgrounds[@]}"; do
  vips thumbnail "$photos/$background.jpg" "$out/bg.v" 1600 --height 600 --crop centre
  for scale in 1 0.7 0.5; do
    vips resize "$astronaut" "$out/a.v" "$scale"
    vips resize "$out/mirrored.v" "$out/m.v" "$scale"
    size=$(vipsheader -f width "$out/a.v")
    fx=$(echo "${face[0]} * $scale" | bc -l | xargs printf '%.0f')
    mx=$(echo "(512 - ${face[0]} - ${face[2]}) * $scale" | bc -l | xargs printf '%.0f')
    fy=$(echo "${face[1]} * $scale" | bc -l | xargs printf '%.0f')
    fs=$(echo "${face[2]} * $scale" | bc -l | xargs printf '%.0f')
    top=$(((600 - size) / 2))
    vips insert "$out/bg.v" "$out/a.v" "$out/$background-left-$scale.png" 20 "$top"
    echo "$background-left-$scale.png $((20 + fx)),$((top + fy)),$fs,$fs" >>"$labels"
    right=$((1600 - size - 20))
    vips insert "$out/bg.v" "$out/m.v" "$out/$background-right-$scale.png" "$right" "$top"
    echo "$background-right-$scale.png $((right + mx)),$((top + fy)),$fs,$fs" >>"$labels"
  done
  # Larger faces, as in a portrait: a 900x600 photo with the astronaut at the left, and
  # a 700x600 one with the mirrored astronaut, a tenth larger, at the right.
  vips thumbnail "$photos/$background.jpg" "$out/small.v" 900 --height 600 --crop centre
  vips insert "$out/small.v" "$astronaut" "$out/$background-photo-left.png" 10 44
  echo "$background-photo-left.png $((10 + face[0])),$((44 + face[1])),${face[2]},${face[3]}" >>"$labels"
  vips thumbnail "$photos/$background.jpg" "$out/small.v" 700 --height 600 --crop centre
  vips resize "$out/mirrored.v" "$out/m.v" 1.1
  vips insert "$out/small.v" "$out/m.v" "$out/$background-closeup-right.png" 127 24
  echo "$background-closeup-right.png $((127 + 265)),$((24 + 73)),104,104" >>"$labels"
  # Two faces at scale 0.7: side by side, and at both ends.
  vips resize "$astronaut" "$out/a.v" 0.7
  vips resize "$out/mirrored.v" "$out/m.v" 0.7
  size=$(vipsheader -f width "$out/a.v")
  fx=123 mx=169 fy=46 fs=66 top=$(((600 - size) / 2))
  vips insert "$out/bg.v" "$out/a.v" "$out/t.v" 400 "$top"
  vips insert "$out/t.v" "$out/m.v" "$out/$background-two-near.png" $((400 + size)) "$top"
  echo "$background-two-near.png $((400 + fx)),$((top + fy)),$fs,$fs $((400 + size + mx)),$((top + fy)),$fs,$fs" >>"$labels"
  vips insert "$out/bg.v" "$out/a.v" "$out/t.v" 20 "$top"
  vips insert "$out/t.v" "$out/m.v" "$out/$background-two-far.png" $((1600 - 20 - size)) "$top"
  echo "$background-two-far.png $((20 + fx)),$((top + fy)),$fs,$fs $((1600 - 20 - size + mx)),$((top + fy)),$fs,$fs" >>"$labels"
done
cp "$astronaut" "$out/astronaut.png"
echo "astronaut.png ${face[0]},${face[1]},${face[2]},${face[3]}" >>"$labels"

# No face: every other photo (the cat is a face, not a human one: a true negative).
for photo in rocket.jpg hubble.jpg retina.jpg chelsea.png coffee.png owl.jpg ladybird.jpg \
  dune.jpg greenmeadow-progressive.jpg colorfulcups-icc.jpg grey-bw.jpg kleiber-20mp.jpg \
  arc-alpha.png; do
  cp "$photos/$photo" "$out/none-$photo"
  echo "none-$photo" >>"$labels"
done
rm -f "$out"/*.v
echo "$(wc -l <"$labels") photos in $out" >&2
