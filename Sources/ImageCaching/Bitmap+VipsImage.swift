import ImageProcessing
import ImageTables
import Vips

extension Bitmap {
  /// The entry's pixels as an image (straight RGBA, RGB or grey), to save or compose.
  public func image() throws(VipsError) -> VipsImage {
    try Rasterizer.image(
      styledBytes: bytes, bytesPerRow: bytesPerRow, width: width, height: height, style: style)
  }
}
