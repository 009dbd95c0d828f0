import Foundation
import Testing
@testable import ScrollWire

/// Every ```json block in docs/protocol.md must be a message the decoders accept and,
/// whitespace aside, exactly what the encoders write for it: the doc shows real output.
@Suite("docs/protocol.md examples")
struct DocExamplesTests {
    static let docURL = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("docs/protocol.md")

    static func jsonBlocks() throws -> [String] {
        let doc = try String(contentsOf: docURL, encoding: .utf8)
        var blocks: [String] = []
        var current: [Substring]?
        for line in doc.split(separator: "\n", omittingEmptySubsequences: false) {
            if current == nil, line.trimmingCharacters(in: .whitespaces) == "```json" {
                current = []
            } else if let lines = current, line.trimmingCharacters(in: .whitespaces) == "```" {
                blocks.append(lines.joined(separator: "\n"))
                current = nil
            } else {
                current?.append(line)
            }
        }
        return blocks
    }

    /// Removes whitespace outside strings, giving the encoders' compact form.
    static func minified(_ json: String) -> String {
        var out = ""
        var inString = false
        var escaped = false
        for c in json {
            if inString {
                out.append(c)
                if escaped { escaped = false } else if c == "\\" { escaped = true } else if c == "\"" { inString = false }
            } else if c == "\"" {
                inString = true
                out.append(c)
            } else if !c.isWhitespace {
                out.append(c)
            }
        }
        return out
    }

    @Test("every example decodes and is what the encoder writes")
    func examplesAreEncoderOutput() throws {
        let blocks = try Self.jsonBlocks()
        var types: Set<String> = []
        var kinds: Set<String> = []
        for block in blocks {
            let compact = Self.minified(block)
            if let client = try? ClientMessageDecoder.decode(compact) {
                #expect(ClientMessageEncoder.encode(client) == compact)
                switch client {
                case .join: types.insert("join")
                case .input(let input): types.insert("input"); kinds.insert(InputKindName(input.kind).rawValue)
                case .sharing(let request): types.insert(request.type)
                case .keyframe: types.insert("keyframe")
                case .ping: types.insert("ping")
                }
            } else {
                let server: ServerMessage
                do { server = try ServerMessageDecoder.decode(compact) } catch {
                    Issue.record("doc example does not decode: \(error)\n\(block)"); continue
                }
                #expect(ServerMessageEncoder.encode(server).text == compact)
                switch server {
                case .snapshot: types.insert("snapshot")
                case .frame: types.insert("frame")
                case .rowMoved: types.insert("rowMoved")
                case .presence: types.insert("presence")
                case .refused: types.insert("refused")
                case .error: types.insert("error")
                case .resumed: types.insert("resumed")
                case .applied: types.insert("applied")
                case .beat: types.insert("beat")
                case .batch: types.insert("batch")
                case .held: types.insert("held")
                case .pong: types.insert("pong")
                case .sharing(let notice): types.insert(notice.type)
                }
            }
        }
        #expect(types == Set(["join", "input", "snapshot", "frame", "rowMoved", "presence", "refused", "error", "resumed", "applied",
                              "beat", "batch", "keyframe", "held", "ping", "pong"])
                .union(SharingRequest.types).union(["asked", "granted", "denied", "expired", "follow"]))
        #expect(kinds == Set(InputKindName.allCases.map(\.rawValue)))
    }

    @Test("the doc's frame and snapshot examples are the fixtures' encodings")
    func fixturesMatchDoc() throws {
        let compact = try Self.jsonBlocks().map(Self.minified)
        let frame = ServerMessageEncoder.frame(Fixtures.docFrame, input: Fixtures.docInput, sentAt: Fixtures.docSentAt).text
        let snapshot = ServerMessageEncoder.snapshot(Fixtures.snapshot()).text
        #expect(compact.contains(frame), "\(frame)")
        #expect(compact.contains(snapshot), "\(snapshot)")
    }
}
