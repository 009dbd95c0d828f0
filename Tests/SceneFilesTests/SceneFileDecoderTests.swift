import Foundation
import Testing
import ScrollEngine
@testable import SceneFiles

/// The decoder and validator: good files give the configuration they describe; every kind of
/// error is reported with its JSON path and line.
@Suite("Scene file decoder")
struct SceneFileDecoderTests {
    private func single(_ errors: [SceneFileError], sourceLocation: SourceLocation = #_sourceLocation) throws -> SceneFileError {
        #expect(errors.count == 1, "\(errors)", sourceLocation: sourceLocation)
        return try #require(errors.first, sourceLocation: sourceLocation)
    }

    @Test func theExamplePhotoFeedGivesItsConfiguration() throws {
        let path = SceneFileFixture.examples.appendingPathComponent("photo-feed.json").path
        let scene = try SceneFileLoader.load(path: path, reservedNames: ["demo"]).get()
        let c = scene.configuration
        #expect(scene.name == "photo-feed")
        #expect(c.headerHeight == 260 && c.insets == EdgeInsets(top: 44) && c.viewport == Size(width: 390, height: 844))
        #expect(c.parallaxLayers.map(\.image) == ["scene-images/photo-feed/layer-0.jpg", "scene-images/photo-feed/layer-1.webp",
                                                  "scene-images/photo-feed/layer-2.png", "scene-images/photo-feed/layer-3.png"])
        #expect(c.parallaxLayers.map(\.pullFactor) == [0.15, 0.25, 1.0 / 3.0, 0.6])
        #expect(c.parallaxLayers.map(\.scrollFactor) == [0.5, 0.75, 1, 1])
        #expect(c.background == BackgroundImage(image: "scene-images/photo-feed/background.png", height: 3000))
        let rows = c.sections.flatMap(\.rows)
        #expect(rows.map(\.id) == Array(0..<rows.count))
        #expect(rows.allSatisfy { $0.height >= 240 })
        #expect(scene.images.map(\.format) == [.jpeg, .webp, .png, .png, .png])
        #expect(scene.images.map(\.format.contentType) == ["image/jpeg", "image/webp", "image/png", "image/png", "image/png"])
    }

    @Test func omittedFieldsTakeTheDocumentedDefaults() throws {
        let fixture = try SceneFileFixture()
        defer { fixture.remove() }
        let c = try fixture.load(minimalScene()).get().configuration
        #expect(c.viewport == Size(width: 390, height: 844) && c.insets == EdgeInsets(top: 44))
        #expect(c.parallaxLayers.isEmpty && c.background == nil && c.decelerationRate == .normal)
        #expect(c.sections == [TableSection(title: "S", headerHeight: 28, rows: [
            TableRow(id: 0, title: "One", group: "S", height: 44), TableRow(id: 1, title: "Two", group: "S", height: 60)])])
        let layer = try fixture.load(minimalScene(#""layers": [{"image": "feed-front.png", "width": 390, "height": 410}],"#))
            .get().configuration.parallaxLayers
        #expect(layer == [ParallaxLayer(image: "scene-images/scene/layer-0.png", size: Size(width: 390, height: 410))])
    }

    @Test func aSyntaxErrorNamesItsLineAndThePathBeingRead() throws {
        let fixture = try SceneFileFixture()
        defer { fixture.remove() }
        let error = try single(try fixture.errors("{\n\"headerHeight\": 0,\n\"sections\": [\n{\"title\": \"S\", \"rows\": [\n{\"title\": \"x\",}\n]}]}"))
        #expect(error.line == 5 && error.path == "$.sections[0].rows[0]")
        #expect(error.message == "not valid JSON: expected a field name in double quotes")
    }

    @Test func missingUnknownAndDuplicateFieldsAreReportedWhereTheyAre() throws {
        let fixture = try SceneFileFixture()
        defer { fixture.remove() }
        let missing = try single(try fixture.errors("{\n\"sections\": [{\"title\": \"S\", \"rows\": [{\"title\": \"x\"}]}]\n}"))
        #expect(missing == SceneFileError(path: "$", line: 1, "missing field 'headerHeight'"))
        let noTitle = try single(try fixture.errors(minimalScene(rows: "{\"title\": \"a\"},\n {\"subtitle\": \"b\"}")))
        #expect(noTitle == SceneFileError(path: "$.sections[0].rows[1]", line: 5, "missing field 'title'"))
        let unknown = try single(try fixture.errors(minimalScene("\"headerHieght\": 10,\n")))
        #expect(unknown.path == "$.headerHieght" && unknown.line == 2 && unknown.message.hasPrefix("unknown field 'headerHieght'"))
        let duplicate = try single(try fixture.errors(minimalScene("\"headerHeight\": 10,\n")))
        #expect(duplicate == SceneFileError(path: "$.headerHeight", line: 3, "duplicate field 'headerHeight' (also on line 2)"))
    }

    @Test func wrongTypesSayWhatWasExpectedAndWhatCame() throws {
        let fixture = try SceneFileFixture()
        defer { fixture.remove() }
        let cases: [(String, String, String)] = [
            ("\"viewport\": [390, 844],\n", "$.viewport", "must be an object, got an array"),
            ("\"insets\": {\"top\": \"44\", \"left\": 0, \"bottom\": 0, \"right\": 0},\n", "$.insets.top", "must be a number, got a string"),
            ("\"layers\": {},\n", "$.layers", "must be an array, got an object"),
            ("\"decelerationRate\": 0.998,\n", "$.decelerationRate", "must be a string (normal or fast), got a number"),
            ("\"decelerationRate\": \"slow\",\n", "$.decelerationRate", "must be 'normal' or 'fast', got 'slow'"),
            ("\"background\": {\"image\": 7, \"height\": 3000},\n", "$.background.image", "must be a string, got a number"),
        ]
        for (extra, path, message) in cases {
            let error = try single(try fixture.errors(minimalScene(extra)))
            #expect(error == SceneFileError(path: path, line: 2, message))
        }
        let title = try single(try fixture.errors(minimalScene(rows: "{\"title\": null}")))
        #expect(title == SceneFileError(path: "$.sections[0].rows[0].title", line: 4, "must be a string, got null"))
    }

    @Test func negativeZeroAndNonFiniteSizesAreRefused() throws {
        let fixture = try SceneFileFixture()
        defer { fixture.remove() }
        let row = try single(try fixture.errors(minimalScene(rows: "{\"title\": \"a\", \"height\": -44}")))
        #expect(row == SceneFileError(path: "$.sections[0].rows[0].height", line: 4, "must be more than 0, got -44"))
        let zero = try single(try fixture.errors(minimalScene(rows: "{\"title\": \"a\", \"height\": 0}")))
        #expect(zero.message == "must be more than 0, got 0")
        let huge = try single(try fixture.errors(minimalScene("\"headerHeight\": 1e999,").replacingOccurrences(of: "\"headerHeight\": 0,", with: "")))
        #expect(huge == SceneFileError(path: "$.headerHeight", line: 2, "must be a finite number (this one is too large for a double)"))
        let layer = try fixture.errors(minimalScene("\"layers\": [{\"image\": \"feed-front.png\", \"width\": -390, \"height\": 410, \"pullFactor\": -1}],\n"))
        #expect(layer.map(\.path) == ["$.layers[0].width", "$.layers[0].pullFactor"])
        let viewport = try single(try fixture.errors(minimalScene("\"viewport\": {\"width\": 50, \"height\": 844},\n")))
        #expect(viewport == SceneFileError(path: "$.viewport.width", line: 2, "must be 100…4000, got 50"))
        let insets = try single(try fixture.errors(minimalScene("\"insets\": {\"top\": 500, \"left\": 0, \"bottom\": 400, \"right\": 0},\n")))
        #expect(insets.path == "$.insets" && insets.message.contains("leaves nothing of the viewport's height (844)"))
    }

    @Test func tooManyRowsIsReportedOnceAtTheFirstRowPastTheLimit() throws {
        let fixture = try SceneFileFixture()
        defer { fixture.remove() }
        let limit = SceneFileLimits.maxRows
        let first = Array(repeating: "{\"title\": \"r\"}", count: limit - 2).joined(separator: ",\n")
        let json = "{\"headerHeight\": 0, \"sections\": [\n{\"title\": \"A\", \"rows\": [\n\(first)]},\n{\"title\": \"B\", \"rows\": [\n{\"title\": \"x\"},\n{\"title\": \"y\"},\n{\"title\": \"z\"},\n{\"title\": \"w\"}]}]}"
        let error = try single(try fixture.errors(json))
        // Section A's rows take lines 3 … limit; B's start on line limit + 2, and its third is
        // the scene's row limit + 1.
        #expect(error == SceneFileError(path: "$.sections[1].rows[2]", line: limit + 4,
                                        "row \(limit + 1) of the scene: a scene has at most \(limit) rows"))
    }

    @Test func duplicateSectionTitlesAndBadSceneNamesAreRefused() throws {
        let fixture = try SceneFileFixture()
        defer { fixture.remove() }
        let json = "{\"headerHeight\": 0, \"sections\": [\n{\"title\": \"A\", \"rows\": [{\"title\": \"a\"}]},\n{\"title\": \"\", \"rows\": [{\"title\": \"b\"}]},\n{\"title\": \"\", \"rows\": [{\"title\": \"c\"}]},\n{\"title\": \"A\", \"rows\": [{\"title\": \"d\"}]}]}"
        let duplicate = try single(try fixture.errors(json))
        #expect(duplicate == SceneFileError(path: "$.sections[3].title", line: 5, "duplicate section title 'A' (also section 0)"))
        let reserved = try single(try fixture.errors(minimalScene(), name: "demo.json"))
        #expect(reserved == SceneFileError(path: "$", line: nil, "'demo' is the name of a built-in scene; rename the file"))
        let odd = try single(try fixture.errors(minimalScene(), name: "my scene.json"))
        #expect(odd.line == nil && odd.message.hasPrefix("the file's name gives the scene its name, and 'my scene' is not one"))
        #expect(odd.formatted(file: "x/my scene.json") == "x/my scene.json: $: \(odd.message)")
    }

    @Test func everyErrorIsReportedUpToTheLimitThenCounted() throws {
        let fixture = try SceneFileFixture()
        defer { fixture.remove() }
        let rows = (0..<150).map { "{\"title\": \"r\", \"height\": -\($0 + 1)}" }.joined(separator: ",\n")
        let errors = try fixture.errors(minimalScene(rows: rows))
        #expect(errors.count == SceneFileLimits.maxErrorsReported + 1)
        #expect(errors[99] == SceneFileError(path: "$.sections[0].rows[99].height", line: 103, "must be more than 0, got -100"))
        #expect(errors.last == SceneFileError(path: "$", line: nil, "50 more errors not shown"))
    }

    @Test func anUnreadableSceneFileHasNoLine() {
        let result = SceneFileLoader.load(path: "/nonexistent/scene.json", reservedNames: [])
        guard case .failure(let failure) = result else { Issue.record("loaded a missing file"); return }
        #expect(failure.lines == ["/nonexistent/scene.json: $: cannot read the scene file: no such file"])
    }
}
