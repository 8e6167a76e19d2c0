import Foundation
import ImageProcessing
import ImageToolManifest
import Vips

/// `imgtool info FILE...`: what each image's header says, after checking it decodes.
public struct InfoCommand: Command {
  public init() {}

  public let spec = CommandSpec(
    name: "info",
    abstract: "Show each image's size, bands, colour space, loader, orientation, alpha and ICC.",
    discussion: """
      Sizes are as displayed, after the EXIF orientation. Each file is also decoded at a \
      small size (shrink-on-load) to check that its data is whole; that decode may pass \
      a file whose full decode fails. --check decodes the whole image the way 'imgtool \
      apply' does (the same decoder, --fail-on level and error), and its line ends \
      'pixels ok'. --header-only reads only the header, and its line ends 'header ok, \
      pixels not checked' (libvips reads a GIF's header by walking all its frames and \
      warns when they end early: a GIF cut short is refused as truncated even then). A \
      bad file gets one line on standard error and the others are \
      still reported; the exit status is 1 when any file failed.
      """,
    options: [
      .init("json", help: "Print one JSON object per file, one per line."),
      .init("header-only", help: "Read only the headers; do not check that the data decodes."),
      .init(
        "check",
        help: "Decode each whole image as 'imgtool apply' does: 'pixels ok', or apply's error."),
      .init(
        "max-pixels", value: "n",
        help: "Refuse images with more pixels than this (default 100000000)."),
      .init(
        "max-dimension", value: "n", help: "Refuse images with a longer side (default 65535)."),
      DecodeMemoryOption.spec,
      FailOnOption.spec,
      DecodeTimeoutOption.spec,
    ],
    arguments: [.init("file", help: "Image files (JPEG, PNG, WebP, TIFF, GIF...).", repeats: true)]
  )

  /// What `info` reports of one file.
  struct Record: Equatable {
    var file: String
    var width: Int
    var height: Int
    var bands: Int
    var bits: Int
    var interpretation: String
    var loader: String
    var orientation: Int
    var alpha: Bool
    var icc: Bool
    /// What was checked beyond the header, when that is not the default small decode:
    /// "header ok, pixels not checked" (--header-only), "pixels ok" (--check).
    var checked: String? = nil

    /// The `--json` object, keys in the documented order.
    var json: JSONValue {
      .object(
        [
          ("file", .string(file)), ("width", .integer(width)), ("height", .integer(height)),
          ("bands", .integer(bands)), ("bits", .integer(bits)),
          ("interpretation", .string(interpretation)), ("loader", .string(loader)),
          ("orientation", .integer(orientation)), ("alpha", .bool(alpha)), ("icc", .bool(icc)),
        ] + (checked.map { [("checked", .string($0))] } ?? []))
    }
  }

  public func run(_ arguments: ParsedArguments, context: CommandContext) async throws -> Int32 {
    let console = context.console
    let limits = try DecodeMemoryOption.limits(
      arguments,
      ImageLimits(
        maxPixels: try arguments.integer(
          "max-pixels", in: 1...1_000_000_000_000, default: ImageLimits.standard.maxPixels),
        maxDimension: try arguments.integer(
          "max-dimension", in: 1...10_000_000, default: ImageLimits.standard.maxDimension)))
    let failOn = try FailOnOption.level(arguments)
    let limit = try DecodeTimeoutOption.limit(arguments)
    if arguments.flag("check") && arguments.flag("header-only") {
      throw CommandLineError.invalidValue(
        option: "--check", value: "--header-only",
        reason: "--check decodes every pixel and --header-only none; give one of them")
    }
    let check: Check =
      arguments.flag("check") ? .whole : arguments.flag("header-only") ? .headerOnly : .small
    var failed = 0
    for path in arguments.positionals {
      do {
        let record = try DecodeTimeoutOption.bounded(limit, source: path) { () throws(VipsError) in
          try describe(path, limits: limits, check: check, failOn: failOn)
        }
        if arguments.flag("json") {
          console.out(record.json.text)
        } else {
          console.out(Self.line(for: record))
        }
      } catch {
        failed += 1
        console.err("imgtool: \(error)")
      }
    }
    return failed == 0 ? ExitCode.success : ExitCode.failure
  }

  /// How much of each file `info` decodes.
  enum Check {
    /// The header alone.
    case headerOnly
    /// A decode at a small size (shrink-on-load).
    case small
    /// The whole image, as `apply` decodes it.
    case whole
  }

  func describe(
    _ path: String, limits: ImageLimits, check: Check, failOn: FailOn = .truncated
  ) throws(VipsError) -> Record {
    if check == .whole {
      // apply's decode (SourceDecoder, no shrink: no pipeline asks for one), first, so
      // that a file it refuses gets the very error apply gives.
      _ = try SourceDecoder.decode(file: path, for: [], limits: limits, failOn: failOn)
    }
    // A name that is not UTF-8 comes escaped (see PathText): its bytes are read by the
    // file's own path bytes, and libvips reads them from memory.
    let image =
      PathText.onDisk(path) != nil
      ? try VipsImage(bytes: FileBytes.read(path), name: path, limits: limits)
      : try VipsImage(file: path, limits: limits)
    let header = image.header
    if check == .small {
      // The decode a render makes (shrink-on-load makes it cheap): a file cut short, or
      // a JPEG whose scan runs out of data, fails here as it fails there.
      _ = try VipsImage.decode(
        bytes: FileBytes.read(path), name: path, limits: limits, failOn: failOn
      ) { header in Double(max(header.displayWidth, header.displayHeight)) / 16 }
    }
    return Record(
      file: path, width: header.displayWidth, height: header.displayHeight, bands: header.bands,
      bits: header.bitsPerSample, interpretation: header.interpretation.rawValue,
      loader: header.loader, orientation: header.orientation, alpha: header.hasAlpha,
      icc: header.hasICCProfile,
      checked: check == .headerOnly
        ? "header ok, pixels not checked" : check == .whole ? "pixels ok" : nil)
  }

  static func line(for record: Record) -> String {
    [
      "\(record.file):", "\(record.width)x\(record.height),",
      "\(record.bands) band\(record.bands == 1 ? "" : "s"),", "\(record.bits)-bit,",
      "\(record.interpretation),", "\(record.loader),", "orientation \(record.orientation),",
      record.alpha ? "alpha," : "no alpha,", record.icc ? "ICC profile" : "no ICC profile",
    ].joined(separator: " ") + (record.checked.map { ", " + $0 } ?? "")
  }
}
