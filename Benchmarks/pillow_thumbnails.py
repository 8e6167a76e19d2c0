"""Pillow's way to make the avatar sizes: one Python process, every photo, every size.

Usage: python3 pillow_thumbnails.py OUT_DIR SIZE[,SIZE...] PHOTO...

Each photo is opened once per size with JPEG draft mode (Pillow's shrink-on-load),
turned upright by EXIF, cropped to a square from the centre and saved as PNG: the
same work `imgtool render --family avatar` does but for the attention crop and circle.
"""

import os
import sys

from PIL import Image, ImageOps


def main() -> int:
    out_dir, sizes_text, *photos = sys.argv[1:]
    sizes = [int(size) for size in sizes_text.split(",")]
    failed = 0
    for number, path in enumerate(photos):
        for size in sizes:
            try:
                with Image.open(path) as image:
                    image.draft("RGB", (size, size))
                    upright = ImageOps.exif_transpose(image)
                    square = ImageOps.fit(upright.convert("RGBA"), (size, size), Image.LANCZOS)
                    square.save(os.path.join(out_dir, f"{number}-{size}.png"))
            except Exception as error:  # a bad photo fails alone, as in imgtool
                print(f"pillow: {path}: {error}", file=sys.stderr)
                failed += 1
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
