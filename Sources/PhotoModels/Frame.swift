import Vips

/// A rectangle in points, as a view would place something: the same shape as a
/// rectangle of pixels, so the models and the drawing share one type.
public typealias Frame = PixelRect
