import Foundation
import TestFixtures
import Testing

@testable import Vips

/// Each row of ``LibvipsMessage``'s table, and each finding of ``FileDamage``, raised by a
/// real file made here from the repository's photos: our words first, libvips's text
/// after them, the file named once.
// In parallel, as a render refuses photos: each refusal keeps its own thread's text
// (ThreadErrorsTests; before, a JPEG's refusal read a TIFF's LZW message in a full run).
@Suite("Error wording")
struct ErrorWordingTests {
  // MARK: Making damaged files

  /// A PNG's chunks: where each starts (its length field), its data's length, its type.
  private func chunks(_ png: [UInt8]) -> [(offset: Int, length: Int, type: String)] {
    var found: [(Int, Int, String)] = []
    var at = 8
    while at + 8 <= png.count {
      let length = png[at..<at + 4].reduce(0) { $0 << 8 | Int($1) }
      found.append((at, length, String(decoding: png[at + 4..<at + 8], as: UTF8.self)))
      at += 12 + length
    }
    return found
  }

  private func flipped(_ bytes: [UInt8], at offset: Int, mask: UInt8 = 0xFF) -> [UInt8] {
    var bytes = bytes
    bytes[offset] ^= mask
    return bytes
  }

  /// The bytes with the CRC of the chunk at `offset` made right again.
  private func withCRC(_ png: [UInt8], chunkAt offset: Int, length: Int) -> [UInt8] {
    var png = png
    let crc = FileDamage.crc32(png[offset + 4..<offset + 8 + length])
    for index in 0..<4 {
      png[offset + 8 + length + index] = UInt8(truncatingIfNeeded: crc >> (24 - 8 * index))
    }
    return png
  }

  /// 256 bytes from `fraction` of the way in, each XORed with 0x5A.
  private func scrambled(_ bytes: [UInt8], at fraction: Double) -> [UInt8] {
    var bytes = bytes
    let start = Int(Double(bytes.count) * fraction)
    for index in start..<min(start + 256, bytes.count) { bytes[index] ^= 0x5A }
    return bytes
  }

  private func write(_ bytes: [UInt8], _ name: String) throws -> String {
    try Generated.file(name, bytes: bytes, in: Fixtures.temporaryFolder())
  }

  /// Where the first `FF code` marker of `jpeg` starts.
  private func marker(
    in jpeg: [UInt8], _ code: UInt8, sourceLocation: SourceLocation = #_sourceLocation
  ) throws -> Int {
    try #require(
      (0..<jpeg.count - 1).first { jpeg[$0] == 0xFF && jpeg[$0 + 1] == code },
      sourceLocation: sourceLocation)
  }

  /// `photo` saved by libvips as a `suffix` file with `options`.
  private func saved(_ photo: String, as suffix: String, options: String = "") throws -> [UInt8] {
    let path = try Fixtures.temporaryFolder().appendingPathComponent("saved." + suffix).path
    try VipsImage(file: Fixtures.photo(photo)).save(to: path, options: options)
    return try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
  }

  /// The error decoding the file at `path` as the render and `apply` do.
  private func failure(_ path: String) -> VipsError? {
    do {
      let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
      _ = try VipsImage.decode(bytes: bytes, name: path) { _ in 1 }
      return nil
    } catch let error as VipsError {
      return error
    } catch {
      return .invalidArgument(operation: "read", message: "\(error)")
    }
  }

  /// Expects our `words` first, then libvips's text holding `libvips`, the file once.
  private func expect(
    _ path: String, _ kind: VipsError.Kind, _ words: String, libvips: String?,
    sourceLocation: SourceLocation = #_sourceLocation
  ) {
    guard let error = failure(path) else {
      Issue.record("\(path) decoded", sourceLocation: sourceLocation)
      return
    }
    let text = error.description
    #expect(error.kind == kind, "\(text)", sourceLocation: sourceLocation)
    #expect(
      text.components(separatedBy: path).count == 2, "\(text)", sourceLocation: sourceLocation)
    guard let libvips else {
      // libvips gave no reason of its own: ours alone (another test's failure on another
      // thread may have left its text in libvips's one buffer; it then follows ours).
      #expect(
        text == "\(path): \(words)" || text.hasPrefix("\(path): \(words) (libvips: "), "\(text)",
        sourceLocation: sourceLocation)
      return
    }
    let head = "\(path): \(words) (libvips: "
    #expect(text.hasPrefix(head), "\(text)", sourceLocation: sourceLocation)
    #expect(
      text.hasSuffix(")") && text.dropFirst(head.count).contains(libvips), "\(text)",
      sourceLocation: sourceLocation)
  }

  // MARK: PNG

  @Test func aPNGChunkWhoseCRCFailsIsNamedWithItsByte() throws {
    let png = try [UInt8](Data(contentsOf: URL(fileURLWithPath: Fixtures.photo("chelsea.png"))))
    let idat = try #require(chunks(png).first { $0.type == "IDAT" })
    let path = try write(flipped(png, at: idat.offset + 8 + idat.length), "idat-crc.png")
    expect(
      path, .checksum,
      "the PNG data is damaged: the CRC of its chunk 'IDAT' at byte \(idat.offset) does not match",
      libvips: "libpng read error")
    let header = try write(flipped(png, at: 8 + 8 + 13), "ihdr-crc.png")
    expect(
      header, .checksum,
      "the PNG data is damaged: the CRC of its chunk 'IHDR' at byte 8 does not match",
      libvips: nil)
  }

  @Test func aPNGWhoseCompressedDataIsDamagedSaysSo() throws {
    let png = try [UInt8](Data(contentsOf: URL(fileURLWithPath: Fixtures.photo("chelsea.png"))))
    let idat = try #require(chunks(png).first { $0.type == "IDAT" })
    let damaged = flipped(png, at: idat.offset + 8 + idat.length / 2, mask: 0x55)
    let path = try write(withCRC(damaged, chunkAt: idat.offset, length: idat.length), "zlib.png")
    expect(
      path, .damaged,
      "the PNG's compressed image data (IDAT) is damaged: it does not decompress",
      libvips: "vipspng: libpng read error")
  }

  @Test func aPNGChunkTypeAHeaderAndMissingImageDataAreNamed() throws {
    let png = try [UInt8](Data(contentsOf: URL(fileURLWithPath: Fixtures.photo("chelsea.png"))))
    let all = chunks(png)
    let idat = try #require(all.first { $0.type == "IDAT" })
    let type = try write(flipped(png, at: idat.offset + 5, mask: 0xA0), "type.png")
    expect(
      type, .damaged,
      "the PNG is damaged: the chunk at byte \(idat.offset) has the type '49 E4 41 54', "
        + "which is not four letters", libvips: nil)
    var depth = png
    depth[8 + 8 + 8] = 3
    let bitDepth = try write(withCRC(depth, chunkAt: 8, length: 13), "depth.png")
    expect(
      bitDepth, .damaged,
      "the PNG is damaged: its header (IHDR) gives a bit depth of 3, which PNG does not "
        + "allow for colour type 2", libvips: nil)
    let end = try #require(all.last)
    let noData = try write(Array(png[0..<33] + png[end.offset...]), "no-idat.png")
    expect(
      noData, .damaged, "the PNG is damaged: it has no image data (no IDAT chunk before IEND)",
      libvips: nil)
  }

  @Test func aPNGCutInsideItsImageDataNamesTheChunk() throws {
    let png = try [UInt8](Data(contentsOf: URL(fileURLWithPath: Fixtures.photo("chelsea.png"))))
    let idat = try #require(chunks(png).last { $0.type == "IDAT" })
    let path = try write(Array(png[0..<(idat.offset + 100)]), "cut.png")
    expect(
      path, .truncated, "the PNG ends early: inside its chunk 'IDAT' at byte \(idat.offset)",
      libvips: "libpng read error")
  }

  /// As libavif's tests/data/circle-trns-before-plte.png (issue 25): libpng 1.6.39
  /// refuses a PLTE after the tRNS, saying only "unable to read PNG header".
  @Test func aPNGWhosePaletteFollowsItsTransparencySaysSo() throws {
    let png = try [UInt8](Data(contentsOf: URL(fileURLWithPath: Fixtures.photo("chelsea.png"))))
    let idat = try #require(chunks(png).first { $0.type == "IDAT" })
    func chunk(_ type: String, _ data: [UInt8]) -> [UInt8] {
      let length = (0..<4).map { UInt8(truncatingIfNeeded: data.count >> (24 - 8 * $0)) }
      let body = Array(type.utf8) + data
      let crc = FileDamage.crc32(body[...])
      return length + body + (0..<4).map { UInt8(truncatingIfNeeded: crc >> (24 - 8 * $0)) }
    }
    let inserted = chunk("tRNS", [0, 1, 0, 2, 0, 3]) + chunk("PLTE", [10, 20, 30])
    let path = try write(
      Array(png[..<idat.offset] + inserted + png[idat.offset...]), "trns-before-plte.png")
    expect(
      path, .damaged,
      "the PNG is damaged: its palette (PLTE) comes after its transparency (tRNS), which PNG "
        + "puts after the palette", libvips: "vipspng: unable to read PNG header")
  }

  @Test func aPNGWhoseSignatureAloneIsDamagedIsNotCalledNotAnImage() throws {
    let png = try [UInt8](Data(contentsOf: URL(fileURLWithPath: Fixtures.photo("chelsea.png"))))
    let path = try write(flipped(png, at: 1, mask: 0x01), "signature.png")
    expect(
      path, .damaged, "the PNG is damaged: its 8-byte signature is wrong at byte 1",
      libvips: "is not in a known format")
  }

  // MARK: TIFF

  @Test func aTIFFCutBeforeItsDirectoryEndsEarly() throws {
    let tiff = try saved("chelsea.png", as: "tif")
    let directory = tiff[4..<8].reversed().reduce(0) { $0 << 8 | Int($1) }
    let cut = Array(tiff[0..<(tiff.count / 2)])
    let path = try write(cut, "cut.tif")
    expect(
      path, .truncated,
      "the TIFF ends early: its first directory is at byte \(directory), and the file has "
        + "\(cut.count) bytes", libvips: "is not in a known format")
  }

  @Test func aTIFFWhoseCompressedStripsAreDamagedSaysWhichCompression() throws {
    let lzw = try write(
      scrambled(saved("astronaut.png", as: "tif", options: "compression=lzw"), at: 0.3), "lzw.tif")
    expect(
      lzw, .damaged, "the TIFF's LZW-compressed data is damaged",
      libvips: "Using code not yet in table")
    let deflate = try write(
      scrambled(saved("astronaut.png", as: "tif", options: "compression=deflate"), at: 0.3),
      "zip.tif")
    expect(
      deflate, .damaged, "the TIFF's Deflate-compressed data is damaged",
      libvips: "ZIPDecode: Decoding error at scanline")
    let short = try write(
      scrambled(saved("coffee.png", as: "tif", options: "compression=lzw"), at: 0.3), "short.tif")
    expect(
      short, .truncated, "the TIFF's LZW-compressed data ends early",
      libvips: "LZWDecode: Not enough data at scanline")
  }

  /// The kept TIFFs of Tests/Fixtures/bad (made by Scripts/make-bad-tiffs), each with the
  /// row or finding that names it: strips or a tile past the end (FileDamage), and each
  /// of tiff2vips's and libtiff's refusals of a variant or a damaged directory.
  @Test(arguments: BadTIFF.all)
  func aKeptTIFFIsRefusedInItsOwnWords(_ tiff: BadTIFF) throws {
    let error = try #require(failure(tiff.path), "\(tiff) decoded")
    #expect(error.kind == tiff.kind, "\(error)")
    #expect(error.description.hasPrefix("\(tiff.path): "), "\(error)")
    #expect(tiff.isReason(error.reason), "\(error.reason)")
  }

  // MARK: HEIF

  /// The kept HEIFs of Tests/Fixtures/bad (made by Scripts/make-bad-heifs), each with the
  /// row or finding that names it: each of libheif's refusals that the test images and
  /// fuzzing corpus of libheif and libvips raised (issue 25), a primary image missing or
  /// of a type libheif 1.15 does not read (FileDamage).
  @Test(arguments: BadHEIF.all)
  func aKeptHEIFIsRefusedInItsOwnWords(_ heif: BadHEIF) throws {
    let error = try #require(failure(heif.path), "\(heif) decoded")
    #expect(error.kind == heif.kind, "\(error)")
    #expect(error.description.hasPrefix("\(heif.path): "), "\(error)")
    #expect(error.description.components(separatedBy: heif.path).count == 2, "\(error)")
    #expect(heif.isReason(error.reason), "\(error.reason)")
  }

  // MARK: GIF and WebP

  @Test func aGIFWhoseFrameIsDamagedSaysSo() throws {
    let path = try write(scrambled(saved("astronaut.png", as: "gif"), at: 0.3), "frame.gif")
    expect(
      path, .damaged, "the GIF's LZW-compressed frame is damaged",
      libvips: "gifload_buffer: Invalid frame data")
  }

  /// As wuffs's test/data/artificial-gif/no-frames.gif (issue 25): a screen, no frame.
  @Test func aGIFWithoutFramesSaysItHoldsNoImage() throws {
    let gif = Array("GIF89a".utf8) + [8, 0, 8, 0, 0, 0, 0, 0x3B]
    expect(
      try write(gif, "no-frames.gif"), .damaged,
      "the GIF holds no image: it ends before its first frame",
      libvips: "gifload_buffer: no frames in GIF")
  }

  @Test func aWebPCutShortOrDamagedSaysWhich() throws {
    let webp = try saved("chelsea.png", as: "webp")
    let declared = webp[4..<8].reversed().reduce(0) { $0 << 8 | Int($1) } + 8
    let cut = Array(webp[0..<(webp.count / 2)])
    let path = try write(cut, "cut.webp")
    expect(
      path, .truncated,
      "the WebP ends early: its header says \(declared) bytes, the file has \(cut.count)",
      libvips: "webp: unable to parse image")
    let damaged = try write(scrambled(webp, at: 0.7), "pixels.webp")
    expect(
      damaged, .damaged, "the WebP's compressed pixels are damaged",
      libvips: "unable to read pixels")
  }

  // MARK: JPEG XL

  /// Found by Fuzz/DecodeFuzz: 12 bytes whose frame header libjxl refuses.
  @Test func aJPEGXLThatLibjxlCannotDecodeSaysSo() throws {
    let path = Fixtures.folder.appendingPathComponent("corpora/fuzz/jxl-bad-frame-header.jxl")
      .path
    expect(
      path, .damaged, "the JPEG XL data is damaged: libjxl cannot decode it",
      libvips: "jxlload_buffer: error JxlDecoderProcessInput")
    // libjxl's text alone: not libtiff's, from bytes tried as a TIFF on the way.
    #expect(
      failure(path)?.description
        == "\(path): the JPEG XL data is damaged: libjxl cannot decode it (libvips: "
        + "jxlload_buffer: error JxlDecoderProcessInput)")
  }

  // MARK: JPEG

  @Test func aJPEGsPrecisionAndHuffmanTableAreNamed() throws {
    let jpeg = try [UInt8](Data(contentsOf: URL(fileURLWithPath: Fixtures.photo("hubble.jpg"))))
    let frame = try #require(
      (0..<jpeg.count - 1).first { jpeg[$0] == 0xFF && [0xC0, 0xC2].contains(jpeg[$0 + 1]) })
    let precision = try write(flipped(jpeg, at: frame + 4, mask: 0x0F), "precision.jpg")
    expect(
      precision, .unsupported,
      "the JPEG's sample precision is not 8 bits, the only one libjpeg here reads",
      libvips: "Unsupported JPEG data precision 7")
    let table = try marker(in: jpeg, 0xC4)
    var huffman = jpeg
    huffman.replaceSubrange(table + 5..<table + 21, with: [UInt8](repeating: 0xFF, count: 16))
    let path = try write(huffman, "huffman.jpg")
    expect(
      path, .damaged, "the JPEG's Huffman table is damaged",
      libvips: "VipsJpeg: Bogus Huffman table definition")
  }

  /// As sharp's test/fixtures/testimgl.jpg (issue 25): lossless JPEG (SOF3), which the
  /// libjpeg-turbo here (2.1) does not read.
  @Test func aJPEGOfAProcessLibjpegDoesNotReadIsNamed() throws {
    let jpeg = try [UInt8](Data(contentsOf: URL(fileURLWithPath: Fixtures.photo("hubble.jpg"))))
    let frame = try marker(in: jpeg, 0xC0)
    var lossless = jpeg
    lossless[frame + 1] = 0xC3
    expect(
      try write(lossless, "lossless.jpg"), .unsupported,
      "the JPEG is coded in a process libjpeg here does not read (lossless or hierarchical "
        + "JPEG)", libvips: "VipsJpeg: Unsupported JPEG process: SOF type 0xc3")
  }

  /// As go-fuzz-corpus's JPEGs (issue 25): a frame of height 0 (DNL), a component whose
  /// quantisation table is missing, a scan of a component the frame lacks, marker 0x02.
  @Test func aJPEGsFrameScanAndUnknownMarkersAreNamed() throws {
    let jpeg = try [UInt8](Data(contentsOf: URL(fileURLWithPath: Fixtures.photo("hubble.jpg"))))
    func changed(_ changes: [(Int, UInt8)], _ name: String) throws -> String {
      var bytes = jpeg
      for (offset, value) in changes { bytes[offset] = value }
      return try write(bytes, name)
    }
    let frame = try marker(in: jpeg, 0xC0)
    expect(
      try changed([(frame + 5, 0), (frame + 6, 0)], "dnl.jpg"), .unsupported,
      "the JPEG gives its height as 0, to be set by a DNL marker after the image data, "
        + "which libjpeg here does not read",
      libvips: "VipsJpeg: Empty JPEG image (DNL not supported)")
    expect(
      try changed([(frame + 12, 3)], "quantisation.jpg"), .damaged,
      "the JPEG refers to a quantisation table it lacks",
      libvips: "VipsJpeg: Quantization table 0x03 was not defined")
    expect(
      try changed([(try marker(in: jpeg, 0xDA) + 5, 0x77)], "component.jpg"), .damaged,
      "the JPEG's scan refers to a colour component its frame does not have",
      libvips: "VipsJpeg: Invalid component ID 119 in SOS")
    expect(
      try changed([(try marker(in: jpeg, 0xDB) + 1, 0x02)], "marker.jpg"), .damaged,
      "the JPEG holds a marker that JPEG does not have",
      libvips: "VipsJpeg: Unsupported marker type 0x02")
  }

  /// As strongcourage/fuzzing-corpus's mozilla JPEGs (issue 25): a progressive scan
  /// whose spectral range runs backwards, and an arithmetic-coding table of index 64.
  @Test func aJPEGsProgressiveScanAndArithmeticTableAreNamed() throws {
    let jpeg = try [UInt8](Data(contentsOf: URL(fileURLWithPath: Fixtures.photo("hubble.jpg"))))
    let frame = try marker(in: jpeg, 0xC0)
    let scan = try marker(in: jpeg, 0xDA)
    var progressive = jpeg
    progressive[frame + 1] = 0xC2
    let ranges = scan + 5 + 2 * Int(jpeg[scan + 4])
    progressive[ranges] = 5
    progressive[ranges + 1] = 2
    expect(
      try write(progressive, "progressive.jpg"), .damaged,
      "the JPEG's progressive scan is damaged: its spectral or bit ranges are not valid",
      libvips: "VipsJpeg: Invalid progressive parameters Ss=5 Se=2 Ah=0 Al=0")
    let arithmetic = Array(jpeg[..<scan] + [0xFF, 0xCC, 0, 4, 0x40, 0] + jpeg[scan...])
    expect(
      try write(arithmetic, "arithmetic.jpg"), .damaged,
      "the JPEG's arithmetic-coding table (DAC) is damaged",
      libvips: "VipsJpeg: Bogus DAC index 64")
  }

  @Test func aJPEGsMarkersAndTablesAreNamed() throws {
    let jpeg = try [UInt8](Data(contentsOf: URL(fileURLWithPath: Fixtures.photo("hubble.jpg"))))
    var length = jpeg
    let quantisation = try marker(in: jpeg, 0xDB)
    length[quantisation + 2] = 0
    length[quantisation + 3] = 1
    expect(
      try write(length, "length.jpg"), .damaged, "a JPEG marker's length is damaged",
      libvips: "VipsJpeg: Bogus marker length")
    let frame = try marker(in: jpeg, 0xC0)
    let frameLength = Int(jpeg[frame + 2]) << 8 | Int(jpeg[frame + 3])
    let noFrame = Array(jpeg[..<frame] + jpeg[(frame + 2 + frameLength)...])
    expect(
      try write(noFrame, "no-frame.jpg"), .damaged, "the JPEG's markers are out of order",
      libvips: "VipsJpeg: Invalid JPEG file structure: SOS before SOF")
    var table = jpeg
    table[try marker(in: jpeg, 0xDA) + 6] = 0x33
    expect(
      try write(table, "table.jpg"), .damaged, "the JPEG refers to a Huffman table it lacks",
      libvips: "VipsJpeg: Huffman table 0x03 was not defined")
  }

  /// A fuzzing corpus's JPEG was refused in libjpeg's words alone: a marker where its
  /// restart interval puts an RST marker. Here rocket.jpg saved with a restart every 4
  /// MCUs, the middle RST marker's second byte made 0xEA.
  @Test func aMarkerWhereARestartBelongsIsNamed() throws {
    var jpeg = try saved("rocket.jpg", as: "jpg", options: "restart_interval=4")
    let scan = try marker(in: jpeg, 0xDA)
    let restarts = (scan..<jpeg.count - 1).filter {
      jpeg[$0] == 0xFF && (0xD0...0xD7).contains(jpeg[$0 + 1])
    }
    try #require(restarts.count > 100)
    jpeg[restarts[restarts.count / 2] + 1] = 0xEA
    expect(
      try write(jpeg, "restart.jpg"), .damaged,
      "the JPEG's compressed data is damaged: another marker stands where a restart marker "
        + "(RST) belongs",
      libvips: "VipsJpeg: Corrupt JPEG data: found marker 0xea instead of RST")
  }

  /// A fuzzing corpus's JPEG was refused in libjpeg's words alone: a code its Huffman
  /// tables do not define. Here rocket.jpg with its scan's second half made `FF 00`
  /// (stuffed 0xFF bytes: runs of one bits longer than any code), its EOI kept.
  @Test func aCodeTheHuffmanTablesLackIsNamed() throws {
    var jpeg = try [UInt8](Data(contentsOf: URL(fileURLWithPath: Fixtures.photo("rocket.jpg"))))
    try #require(jpeg.suffix(2) == [0xFF, 0xD9])
    let scan = try marker(in: jpeg, 0xDA)
    let data = scan + 2 + (Int(jpeg[scan + 2]) << 8 | Int(jpeg[scan + 3]))
    let middle = (data + jpeg.count - 2) / 2
    for offset in stride(from: middle, to: jpeg.count - 3, by: 2) {
      jpeg[offset] = 0xFF
      jpeg[offset + 1] = 0x00
    }
    expect(
      try write(jpeg, "huffman.jpg"), .damaged,
      "the JPEG's compressed data is damaged: it holds a code its Huffman tables do not define",
      libvips: "VipsJpeg: Corrupt JPEG data: bad Huffman code")
  }

  // MARK: libvips's lines

  @Test func repeatedLibvipsLinesAreSaidOnceAndNoneIsSaidAsNoReason() {
    #expect(
      LibvipsMessage.joined([
        "source: bad seek", "source: bad seek", "flatten: x", "source: bad seek",
      ])
        == "source: bad seek; flatten: x")
    #expect(LibvipsMessage.joined([]) == "libvips gave no reason")
    let error = VipsError.operationFailed(
      operation: "load", source: "a.png", message: LibvipsMessage.noReason)
    #expect(error.description == "a.png: load failed, and libvips gave no reason")
  }

  @Test func everyTableRowIsReachedByItsOwnPattern() {
    for entry in LibvipsMessage.table {
      let message = "\(entry.loader ?? "loader"): \(entry.pattern)"
      #expect(LibvipsMessage.entry(for: message)?.words == entry.words, "\(entry.pattern)")
    }
  }
}
