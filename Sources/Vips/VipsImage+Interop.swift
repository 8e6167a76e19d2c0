import CVips
import CVipsShim

extension VipsImage {
  /// Calls `body` with this image's C `VipsImage *`, borrowed: valid during the call,
  /// not to be released. For plugins and C code that take libvips images.
  public func withUnsafeVipsImagePointer<Result>(
    _ body: (UnsafeMutableRawPointer) throws -> Result
  ) rethrows -> Result {
    try withExtendedLifetime(self) { try body(UnsafeMutableRawPointer(pointer)) }
  }

  /// Wraps a C `VipsImage *` that C code made from this image, taking over the one
  /// reference it holds. The new image keeps alive what this one keeps alive.
  public func adoptingDerivedImage(_ image: UnsafeMutableRawPointer) -> VipsImage {
    VipsImage(
      taking: image.assumingMemoryBound(to: CVips.VipsImage.self), source: source, anchors: anchors)
  }

  /// Wraps a C `VipsImage *` that C code made from this image and still holds: adds a
  /// reference of its own, so the caller keeps its one. The new image keeps alive what
  /// this one keeps alive.
  public func borrowingDerivedImage(_ image: UnsafeMutableRawPointer) -> VipsImage {
    g_object_ref(image)
    return adoptingDerivedImage(image)
  }

  /// Wraps a C `VipsImage *` that C code lends (a host's input to a plugin): adds a
  /// reference of its own, so the lender keeps its one. Whatever keeps the lender's
  /// pixels alive stays the lender's to keep while this image lives.
  ///
  /// - Parameter source: how errors name the image, for example the entity it draws.
  public convenience init(borrowing image: UnsafeMutableRawPointer, source: String? = nil) {
    g_object_ref(image)
    self.init(
      taking: image.assumingMemoryBound(to: CVips.VipsImage.self), source: source, anchors: [])
  }

  /// This image's C `VipsImage *` with one new reference, which the caller (C code)
  /// takes over and must release. Whatever keeps its pixels alive on the Swift side
  /// (memory it was read from) is tied to the C image, so it stays alive as long as
  /// that reference (or any image libvips makes from it) does, after this `VipsImage`
  /// is gone and in a process that knows nothing of it.
  public func retainedVipsImagePointer() -> UnsafeMutableRawPointer {
    withExtendedLifetime(self) {
      if !anchors.isEmpty {
        // Freed with the C image: the anchors are memory, they never point back at it.
        let box = Unmanaged.passRetained(AnchorBox(anchors)).toOpaque()
        g_object_set_data_full(
          UnsafeMutableRawPointer(pointer).assumingMemoryBound(to: GObject.self),
          "imagetool-swift-anchors", box
        ) { box in box.map { Unmanaged<AnchorBox>.fromOpaque($0).release() } }
      }
      g_object_ref(pointer)
      return UnsafeMutableRawPointer(pointer)
    }
  }

  /// A matrix product of the bands: output band i is the sum over j of
  /// `matrix[i][j]` x input band j (libvips's recomb); the result is float.
  public func recombined(_ matrix: [[Double]]) throws(VipsError) -> VipsImage {
    guard let columns = matrix.first?.count, columns == bands,
      matrix.allSatisfy({ $0.count == columns })
    else {
      throw .invalidArgument(
        operation: "recomb", message: "the matrix needs \(bands) columns in every row")
    }
    let flat = matrix.flatMap { $0 }
    let matrixImage = try Self.create("matrix") { out in
      out.pointee = vips_image_new_matrix_from_array(
        Int32(columns), Int32(matrix.count), flat, Int32(flat.count))
      return out.pointee == nil ? -1 : 0
    }
    return try derive("recomb", with: [matrixImage]) { input, out in
      cvips_recomb(input, out, matrixImage.pointer)
    }
  }
}

/// The Swift memory a C image reads, held by the C image itself.
private final class AnchorBox {
  let anchors: [AnyObject]
  init(_ anchors: [AnyObject]) { self.anchors = anchors }
}
