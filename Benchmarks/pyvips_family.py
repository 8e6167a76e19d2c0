"""The avatar sizes (256, 128 and 64 pixels, centre crops) with pyvips, to bytes.

Usage: python3 pyvips_family.py --mode resize|thumbnail PHOTO...

One process; libvips runs its own threads. `--mode resize`: one
`Image.thumbnail(path, 256, height=256, crop="centre")` per photo, kept in memory, and
the two smaller sizes resized from it (`resize(0.5)`, `resize(0.25)`, lanczos3).
`--mode thumbnail`: one thumbnail per size, each from the file (a decode per size, as
vipsthumbnail does). Every size is written to memory (`write_to_memory`), nothing to
disk. Which libvips runs is the environment's: the benchmark's has `pyvips-binary`.
"""

import argparse
import sys

import pyvips

SIZES = (256, 128, 64)


def by_resize(path):
    large = pyvips.Image.thumbnail(path, SIZES[0], height=SIZES[0], crop="centre")
    large = large.copy_memory()  # decoded once: the resizes read this, not the file
    made = len(large.write_to_memory())
    for size in SIZES[1:]:
        made += len(large.resize(size / SIZES[0]).write_to_memory())
    return made


def by_thumbnail(path):
    made = 0
    for size in SIZES:
        made += len(pyvips.Image.thumbnail(path, size, height=size, crop="centre").write_to_memory())
    return made


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mode", choices=("resize", "thumbnail"), required=True)
    parser.add_argument("photos", nargs="+")
    options = parser.parse_args()
    work = by_resize if options.mode == "resize" else by_thumbnail
    failed = 0
    for path in options.photos:
        try:
            work(path)
        except pyvips.Error as error:  # a bad photo fails alone, as in imgtool
            print(f"pyvips_family: {path}: {error}", file=sys.stderr)
            failed += 1
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
