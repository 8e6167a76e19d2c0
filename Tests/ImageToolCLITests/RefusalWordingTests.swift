import Foundation
import TestFixtures
import Testing
import Vips

@testable import ImageToolCLI

/// What `info` and `apply` say of files only a blocked loader reads, and of a grey TIFF
/// with alpha and an extra band.
@Suite("Refusal wording")
struct RefusalWordingTests {
  private static let whyBlocked =
    "and that loader is blocked for untrusted input: its parser was never hardened "
    + "(fuzzed) against hostile files, and photos never need it"

  /// Small files of formats that only a loader blocked for untrusted input reads, the
  /// loader, and the format's name in the refusal.
  private static func blockedFiles() -> [(name: String, bytes: [UInt8], says: String)] {
    func le32(_ value: Int) -> [UInt8] {
      (0..<4).map { UInt8(truncatingIfNeeded: value >> (8 * $0)) }
    }
    func le16(_ value: Int) -> [UInt8] {
      (0..<2).map { UInt8(truncatingIfNeeded: value >> (8 * $0)) }
    }
    let pixels: [UInt8] = [0, 0, 255, 0, 255, 0, 0, 0, 0, 0, 255, 0, 255, 0, 0, 0]
    let dib =
      le32(40) + le32(2) + le32(2) + le16(1) + le16(24) + le32(0) + le32(16)
      + le32(2835) + le32(2835) + le32(0) + le32(0)
    let bmp = Array("BM".utf8) + le32(14 + 40 + 16) + le32(0) + le32(54) + dib + pixels
    let icoDIB =
      le32(40) + le32(2) + le32(4) + le16(1) + le16(24) + [UInt8](repeating: 0, count: 24)
      + pixels + [UInt8](repeating: 0, count: 8)
    let ico =
      le16(0) + le16(1) + le16(1) + [2, 2, 0, 0] + le16(1) + le16(24)
      + le32(icoDIB.count) + le32(22) + icoDIB
    let tga: [UInt8] = [0, 0, 2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2, 0, 2, 0, 24, 0] + pixels.prefix(12)
    let pam =
      Array("P7\nWIDTH 2\nHEIGHT 2\nDEPTH 3\nMAXVAL 255\nTUPLTYPE RGB\nENDHDR\n".utf8)
      + pixels.prefix(12)
    let sgi: [UInt8] =
      [0x01, 0xDA, 0, 1, 0, 3, 0, 2, 0, 2, 0, 3] + [UInt8](repeating: 0, count: 500)
    let pdf = Array(
      ("%PDF-1.4\n1 0 obj<</Type/Catalog/Pages 2 0 R>>endobj\n2 0 obj<</Type/Pages/Kids[3 0 R]"
        + "/Count 1>>endobj\n3 0 obj<</Type/Page/Parent 2 0 R/MediaBox[0 0 10 10]>>endobj\n"
        + "trailer<</Root 1 0 R>>\n%%EOF\n").utf8)
    let ppm = Array("P6\n2 2\n255\n".utf8) + pixels.prefix(12)
    let cards = [
      "SIMPLE  =                    T", "BITPIX  =                    8",
      "NAXIS   =                    2", "NAXIS1  =                    2",
      "NAXIS2  =                    2", "END",
    ]
    let header = cards.map { $0.padding(toLength: 80, withPad: " ", startingAt: 0) }.joined()
    let fits =
      Array(header.padding(toLength: 2880, withPad: " ", startingAt: 0).utf8)
      + [UInt8](repeating: 0, count: 2880)
    let exr: [UInt8] = [0x76, 0x2F, 0x31, 0x01] + [UInt8](repeating: 0, count: 60)
    let matText = "MATLAB 5.0 MAT-file, Platform: GLNXA64"
    let mat =
      Array(matText.padding(toLength: 116, withPad: " ", startingAt: 0).utf8)
      + [UInt8](repeating: 0, count: 8) + le16(0x0100) + Array("IM".utf8)
    let analyze = le32(348) + [UInt8](repeating: 0, count: 344)
    let magick = "only ImageMagick's loader 'magickload' reads"
    return [
      ("p.bmp", bmp, "it is a BMP image, which \(magick)"),
      ("p.ico", ico, "it is an ICO icon, which \(magick)"),
      ("p.tga", tga, "it is a TGA image, which \(magick)"),
      ("p.pam", pam, "it is a PAM image, which \(magick)"),
      ("p.sgi", sgi, "it is an SGI image, which \(magick)"),
      ("p.pdf", pdf, "it is a PDF document, which only Poppler's loader 'pdfload' reads"),
      ("p.ppm", ppm, "it is a PPM/PGM/PBM/PFM image, which only libvips's loader 'ppmload' reads"),
      ("p.fits", fits, "it is a FITS image, which only libvips's loader 'fitsload' reads"),
      ("p.exr", exr, "it is an OpenEXR image, which only libvips's loader 'openexrload' reads"),
      ("p.mat", mat, "it is a MATLAB file, which only libvips's loader 'matload' reads"),
      (
        "p.hdr", analyze,
        "it is an Analyze 7.5 image, which only libvips's loader 'analyzeload' reads"
      ),
    ]
  }

  @Test func blockedFormatsAreNamedAsBlockedAlikeByInfoAndApply() async throws {
    let folder = try Fixtures.temporaryFolder()
    for file in Self.blockedFiles() {
      let path = try Generated.file(file.name, bytes: file.bytes, in: folder)
      let expected = "imgtool: \(path): \(file.says), \(Self.whyBlocked)"
      let info = await runTool(["info", path])
      #expect(info.status == 1 && info.err == [expected], "\(info.err)")
      let output = folder.appendingPathComponent(file.name + ".png").path
      for pipeline in ["fill(crop: centre)", "fit"] {
        let apply = await runTool(["apply", "--pipeline", pipeline, "--size", "8x8", path, output])
        #expect(apply.status == 1 && apply.err == [expected], "\(pipeline): \(apply.err)")
      }
      #expect(!FileManager.default.fileExists(atPath: output))
    }
  }

  /// The kept TIFFs of Tests/Fixtures/bad: the real `imgtool`'s `info`, `info --check`
  /// and both applies each say the same one line, our words first, nothing written.
  @Test(arguments: BadTIFF.all)
  func aKeptTIFFIsRefusedInItsOwnWordsByEveryCommand(_ tiff: BadTIFF) throws {
    try expectOneLineFromEveryCommand(tiff.path, isReason: tiff.isReason)
  }

  /// The kept HEIFs of Tests/Fixtures/bad: every command says the same one line, our
  /// words first, nothing written (`info --check` and `apply` agree, issue 25).
  @Test(arguments: BadHEIF.all)
  func aKeptHEIFIsRefusedInItsOwnWordsByEveryCommand(_ heif: BadHEIF) throws {
    try expectOneLineFromEveryCommand(heif.path, isReason: heif.isReason)
  }

  /// A JPEG XL codestream libjxl refuses (a fuzzer's find): Debian's libjxl prints its
  /// failure trace to C's stderr first, four lines of `./lib/jxl/...: JXL_FAILURE: ...`;
  /// every command still says only our one line (``CodecDebugLines``).
  @Test func aDamagedJPEGXLIsOneLineWithoutLibjxlsTrace() throws {
    let path = Fixtures.folder.appendingPathComponent("corpora/fuzz/jxl-bad-frame-header.jxl")
    try expectOneLineFromEveryCommand(path.path) {
      $0.hasPrefix("the JPEG XL data is damaged: ") && !$0.contains("lib/jxl")
    }
  }

  /// Runs the real `imgtool`'s `info`, `info --check` and both applies on `path`: each
  /// exits 1 with one line on standard error, `imgtool: <path>: ` and a reason that
  /// `isReason` takes, and writes nothing.
  private func expectOneLineFromEveryCommand(_ path: String, isReason: (String) -> Bool) throws {
    let output = try Fixtures.temporaryFolder().appendingPathComponent("out.png").path
    let runs = [
      ["info", path], ["info", "--check", path],
      ["apply", "--pipeline", "fill(crop: centre)", "--size", "8x8", path, output],
      ["apply", "--pipeline", "fit", "--size", "8x8", path, output],
    ]
    let head = "imgtool: \(path): "
    for arguments in runs {
      let result = try runExecutable(arguments)
      #expect(result.status == 1 && result.out.isEmpty, "\(arguments): \(result)")
      let lines = result.err.split(separator: "\n").map(String.init)
      #expect(lines.count == 1, "\(arguments): \(result.err)")
      #expect(
        lines.first.map { $0.hasPrefix(head) && isReason(String($0.dropFirst(head.count))) }
          == true, "\(arguments): \(result.err)")
    }
    #expect(!FileManager.default.fileExists(atPath: output))
  }

  @Test func renderPicksNoSuffixThatABlockedLoaderDeclaresToo() async throws {
    let help = await runTool(["render", "--help"]).out.joined(separator: " ")
    #expect(help.contains(".jpg") && help.contains(".png"), "\(help)")
    #expect(!help.contains(".mat"), "\(help)")
    #expect(try !Vips.trustedLoaderSuffixes().contains("mat"))
    #expect(try !Vips.isTrustedLoaderSuffix("mat"))
  }

  // MARK: Grey, alpha and an extra band

  /// A TIFF of chelsea's grey, an alpha (its red band) and an extra band (its blue band),
  /// and the grey with that alpha alone. With `profile`, the grey is chelsea's green band
  /// and the TIFF keeps chelsea's RGB profile, which does not fit a grey image.
  private func greyAlphaExtraTIFF(in folder: URL, profile: Bool) throws -> (
    path: String, greyAlpha: VipsImage
  ) {
    let original = try VipsImage(file: Fixtures.photo("chelsea.png"))
    let photo = profile ? original : try original.toSRGB()
    let grey = try profile ? photo.extractingBands(1) : photo.toGreyscale()
    let alpha = try photo.extractingBands(0)
    let extra = try photo.extractingBands(2)
    let greyAlpha = try grey.joiningBands(alpha).tagged(as: .bw)
    let path = folder.appendingPathComponent("grey-alpha-extra.tif").path
    try greyAlpha.joiningBands(extra).tagged(as: .bw).save(
      to: path, options: profile ? "" : "strip")
    return (path, greyAlpha)
  }

  @Test(arguments: [false, true])
  func aGreyTIFFWithAlphaAndAnExtraBandKeepsItsAlpha(profile: Bool) async throws {
    let folder = try Fixtures.temporaryFolder()
    let (path, greyAlpha) = try greyAlphaExtraTIFF(in: folder, profile: profile)
    let header = try VipsImage(file: path)
    #expect(header.bands == 3 && header.interpretation == .bw && header.hasAlpha)
    #expect(header.hasICCProfile == profile)
    let output = folder.appendingPathComponent("bgra.png").path
    let bgra = await runTool([
      "apply", "--pipeline", "fit", "--size", "451x300", "--style", "bgra32", path, output,
    ])
    #expect(bgra.status == 0, "\(bgra.err)")
    let alpha = try VipsImage(file: output).extractingBands(3)
    #expect(try alpha.maximumDifference(to: greyAlpha.extractingBands(1)) <= 2)
    // Over white, as libvips flattens the grey by its alpha.
    let opaque = folder.appendingPathComponent("bgr.png").path
    let bgr = await runTool([
      "apply", "--pipeline", "fit", "--size", "451x300", "--style", "bgr32", path, opaque,
    ])
    #expect(bgr.status == 0 && bgr.err.isEmpty, "\(bgr.err)")
    let flattened = try greyAlpha.flattened(background: [255])
    #expect(try VipsImage(file: opaque).extractingBands(0).maximumDifference(to: flattened) <= 2)
  }
}
