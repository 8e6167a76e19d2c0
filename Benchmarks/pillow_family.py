"""The Pillow family script: the peer `imgtool render --family avatar` is judged against.

Usage: python3 pillow_family.py [--processes N] [--decode-only] PHOTO...

Per photo: one `draft('RGB', (512, 512))` decode (JPEG's DCT scaling to no less than
twice the largest size, as libvips's thumbnail rule leaves for the resample), then
`ImageOps.exif_transpose`, then three `ImageOps.fit(..., LANCZOS)` to 256, 128 and 64
pixels, each turned to bytes: centre crops, no colour management, no circle, nothing
written. Palette and 16-bit images are first converted to RGB (RGBA when they have
transparency), because Pillow resamples a palette image with NEAREST whatever it is
asked (and so would do less than the others).

Runs the same with pillow-simd and with Pillow: the interpreter's environment decides
which. `--processes N` spreads the photos over a pool of N processes
(multiprocessing, one photo at a time), else it is one process. `--decode-only` stops
after the draft decode and `exif_transpose` (the decode alone, at the same DCT scale).
"""

import argparse
import multiprocessing
import sys

from PIL import Image, ImageOps

SIZES = (256, 128, 64)
DRAFT = (512, 512)


def family(path, decode_only=False):
    """Bytes made from one photo (their count, so that the work cannot be skipped)."""
    with Image.open(path) as image:
        image.draft("RGB", DRAFT)
        upright = ImageOps.exif_transpose(image)
        if upright.mode not in ("RGB", "RGBA", "L", "LA", "CMYK"):
            has_alpha = upright.mode in ("PA", "La") or "transparency" in upright.info
            upright = upright.convert("RGBA" if has_alpha else "RGB")
        if decode_only:
            upright.load()
            return upright.width * upright.height
        made = 0
        for size in SIZES:
            made += len(ImageOps.fit(upright, (size, size), Image.LANCZOS).tobytes())
        return made


def family_or_error(job):
    path, decode_only = job
    try:
        return path, family(path, decode_only), None
    except Exception as error:  # a bad photo fails alone, as in imgtool
        return path, 0, str(error)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--processes", type=int, default=0, help="a pool of N processes")
    parser.add_argument("--decode-only", action="store_true")
    parser.add_argument("photos", nargs="+")
    options = parser.parse_args()
    jobs = [(path, options.decode_only) for path in options.photos]
    if options.processes > 0:
        with multiprocessing.Pool(options.processes) as pool:
            results = list(pool.imap_unordered(family_or_error, jobs, chunksize=1))
    else:
        results = [family_or_error(job) for job in jobs]
    failed = [(path, error) for path, _, error in results if error is not None]
    for path, error in failed:
        print(f"pillow_family: {path}: {error}", file=sys.stderr)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
