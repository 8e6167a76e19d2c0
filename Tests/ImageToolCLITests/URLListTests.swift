import Foundation
import Testing

@testable import ImageToolCLI

@Suite("imgtool render --urls lists")
struct URLListTests {
  @Test func idsCommentsAndBlankLines() throws {
    let list = try URLList(
      text: """
        # photos of the trip
        http://127.0.0.1:8080/a.jpg

        rome\thttps://photos.example/rome.jpg\r
          # indented comment
        HTTPS://photos.example/b.png
        """, file: "trip.txt")
    #expect(
      list.entries == [
        .init(
          url: URL(string: "http://127.0.0.1:8080/a.jpg")!, entityID: "http://127.0.0.1:8080/a.jpg",
          line: 2),
        .init(url: URL(string: "https://photos.example/rome.jpg")!, entityID: "rome", line: 4),
        .init(
          url: URL(string: "HTTPS://photos.example/b.png")!,
          entityID: "HTTPS://photos.example/b.png", line: 6),
      ])
  }

  @Test func aBadLineIsNamedWithItsFileAndNumber() {
    #expect(
      throws: URLListError.badLine(
        file: "list.txt", line: 3, text: "ftp://photos.example/a.jpg",
        reason: "only http:// and https:// URLs are downloaded, not ftp: ones")
    ) {
      try URLList(text: "# ok\nhttp://h/a.jpg\nftp://photos.example/a.jpg\n", file: "list.txt")
    }
    #expect(
      throws: URLListError.badLine(
        file: "list.txt", line: 1, text: "\thttp://h/a.jpg",
        reason: "the id before the tab is empty; write 'id<TAB>url', or the URL alone")
    ) {
      try URLList(text: "\thttp://h/a.jpg", file: "list.txt")
    }
    #expect(
      throws: URLListError.badLine(
        file: "list.txt", line: 1, text: "a\tb\thttp://h/a.jpg",
        reason: "more than one tab; write 'id<TAB>url', or the URL alone")
    ) {
      try URLList(text: "a\tb\thttp://h/a.jpg", file: "list.txt")
    }
    #expect(
      "\(URLListError.badLine(file: "list.txt", line: 3, text: "x", reason: "why"))"
        == "--urls list.txt:3: 'x': why")
  }

  @Test func aMissingListIsNamed() {
    #expect(
      throws: URLListError.unreadable(
        file: "/nonexistent/list.txt", message: "no such file")
    ) {
      try URLList.read("/nonexistent/list.txt")
    }
  }

  @Test func urlInputsTakeTheURLAsIdAndDuplicatesAreOnePhoto() {
    let list = try? URLList(text: "named\thttp://h/b.jpg\nhttp://h/a.jpg\n", file: "l")
    let found = RenderInputs(
      paths: ["http://h/a.jpg", "http://"], urls: list?.entries ?? [])
    #expect(
      found.inputs == [
        .init(
          path: "http://h/a.jpg", entityID: "http://h/a.jpg", url: URL(string: "http://h/a.jpg")),
        .init(path: "http://h/b.jpg", entityID: "named", url: URL(string: "http://h/b.jpg")),
      ])
    #expect(found.problems.map(\.path) == ["http://"])
    #expect(found.problems.map(\.error) == ["no host after http://"])
  }

  /// Two URLs of one id would replace each other's entries: the second is refused, with
  /// the way to keep both.
  @Test func twoURLsOfOneIdAreNamedWithTheWayToKeepBoth() throws {
    let list = try URLList(text: "x\thttp://h/a.jpg\nx\thttp://h/b.jpg\n", file: "l")
    let found = RenderInputs(paths: [], urls: list.entries)
    #expect(found.inputs.map(\.entityID) == ["x"])
    #expect(found.problems.map(\.path) == ["http://h/b.jpg"])
    #expect(
      found.problems.map(\.error) == [
        "its entity id 'x' is also http://h/a.jpg's; give one an id of its own with a --urls "
          + "line 'id<TAB>url'"
      ])
  }
}
