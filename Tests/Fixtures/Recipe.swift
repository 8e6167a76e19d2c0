/// How a made fixture is made from the kept photos.
enum Recipe: Sendable, Hashable {
  case cmykJPEG, paletteGIF, tiffLZW, webp, heic, avif, progressiveJPEG, sixteenBitPNG
  case greyJPEG, greyAlphaPNG, roundMaskPNG, onePixelPNG
  case orientation(Int)
  case truncatedJPEG
}
