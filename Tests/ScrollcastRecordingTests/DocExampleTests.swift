import Foundation
import Testing
import ScrollEngine
import ScrollcastRecording

/// docs/recording.md shows real lines: each example reads, is what the encoder writes, and the
/// whole recording replays.
@Suite("docs/recording.md examples")
struct DocExampleTests {
    static let docURL = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("docs/recording.md")

    /// The ```json and ```jsonl blocks, in order, with their language.
    static func blocks() throws -> [(language: String, text: String)] {
        let doc = try String(contentsOf: docURL, encoding: .utf8)
        var blocks: [(String, String)] = []
        var current: (String, [Substring])?
        for line in doc.split(separator: "\n", omittingEmptySubsequences: false) {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            if current == nil, trimmed == "```json" || trimmed == "```jsonl" {
                current = (String(trimmed.dropFirst(3)), [])
            } else if let (language, lines) = current, trimmed == "```" {
                blocks.append((language, lines.joined(separator: "\n")))
                current = nil
            } else {
                current?.1.append(line)
            }
        }
        return blocks
    }

    @Test func everyLineShownIsOneTheEncoderWrites() throws {
        let singles = try Self.blocks().filter { $0.language == "json" }
        #expect(singles.count == 4)
        for (index, block) in singles.enumerated() {
            // The header is shown wrapped; a recording has it on one line.
            let line = block.text.replacingOccurrences(of: "\n ", with: "")
            if index == 0 {
                let header = try RecordingDecoder.decodeHeader(line: Array(line.utf8))
                #expect(String(decoding: RecordingEncoder.header(header), as: UTF8.self) == line)
            } else {
                let entry = try RecordingDecoder.decodeEntry(line: Array(line.utf8), number: 2)
                #expect(String(decoding: RecordingEncoder.line(entry), as: UTF8.self) == line)
            }
        }
    }

    @Test func theWholeRecordingReplays() throws {
        let whole = try #require(try Self.blocks().first { $0.language == "jsonl" })
        let recording = try RecordingDecoder.decode(Array(whole.text.utf8))
        #expect(String(decoding: RecordingEncoder.encode(recording), as: UTF8.self) == whole.text + "\n")
        let frames = try Replay.frames(of: recording, configuration: SeedTableScene.configuration())
            .map { String(decoding: $0, as: UTF8.self) }
        #expect(frames.count == 5)
        #expect(frames[0].hasPrefix(#"{"type":"frame","seq":1,"t":1204.5,"sentAt":0,"input":{"viewer":"v1","id":1}"#))
        #expect(frames[4].hasPrefix(#"{"type":"frame","seq":5,"t":3100,"sentAt":0,"input":{"viewer":"v2","id":8}"#))
    }
}
