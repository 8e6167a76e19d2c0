"""Pillow's way to make a family of sizes from one decode: the peer `imgtool render` must beat.

Usage: python3 pillow_family.py OUT_DIR SIZE[,SIZE...] PHOTO...

One Python process. Each photo is decoded once, with JPEG draft mode (Pillow's
shrink-on-load) at the largest size, turned upright by EXIF, and cut to each square
size from the centre with `ImageOps.fit` (LANCZOS). The raw RGBA bytes of every size
are written to one file per photo: no PNG encode, as a table holds raw pixels too.
"""

import os
import sys

from PIL import Image, ImageOps


def main() -> int:
    out_dir, sizes_text, *photos = sys.argv[1:]
    sizes = sorted((int(size) for size in sizes_text.split(",")), reverse=True)
    failed = 0
    for number, path in enumerate(photos):
        try:
            with Image.open(path) as image:
                image.draft("RGB", (sizes[0], sizes[0]))
                upright = ImageOps.exif_transpose(image).convert("RGBA")
                with open(os.path.join(out_dir, f"{number}.rgba"), "wb") as out:
                    for size in sizes:
                        out.write(ImageOps.fit(upright, (size, size), Image.LANCZOS).tobytes())
        except Exception as error:  # a bad photo fails alone, as in imgtool
            print(f"pillow: {path}: {error}", file=sys.stderr)
            failed += 1
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
