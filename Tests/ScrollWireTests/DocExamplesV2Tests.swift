import Foundation
import Testing
@testable import ScrollWire

/// Every ```hex block in docs/protocol.md is a version-2 message. Read in order by one decoder,
/// as a viewer receives them, each must decode and re-encode to exactly its bytes; together they
/// are the fixtures' session (`FixturesV2.session()`). Text after `#` on a line is a comment.
@Suite("docs/protocol.md version 2 examples")
struct DocExamplesV2Tests {
    static func hexBlocks() throws -> [[UInt8]] {
        let doc = try String(contentsOf: DocExamplesTests.docURL, encoding: .utf8)
        var blocks: [[UInt8]] = []
        var current: [UInt8]?
        for line in doc.split(separator: "\n", omittingEmptySubsequences: false) {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            if current == nil, trimmed == "```hex" {
                current = []
            } else if current != nil, trimmed == "```" {
                blocks.append(current!)
                current = nil
            } else if current != nil {
                let data = line.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
                for pair in data.split(separator: " ") {
                    guard pair.count == 2, let byte = UInt8(pair, radix: 16) else {
                        throw WireError("not a hex byte in the doc: '\(pair)' in line '\(line)'")
                    }
                    current!.append(byte)
                }
            }
        }
        return blocks
    }

    @Test("every hex example decodes in order and re-encodes to the same bytes; every message type is shown")
    func examplesAreEncoderOutput() throws {
        var decoder = ServerMessageDecoderV2()
        var types: Set<UInt8> = []
        for block in try Self.hexBlocks() {
            let message = try decoder.decode(block)
            #expect(ServerMessageEncoderV2.encode(message, texts: decoder.texts) == block)
            types.insert(block[0])
        }
        #expect(types == Set(ServerMessageTypeV2.allCases.map(\.rawValue)))
    }

    @Test("the hex examples are the fixtures' session, byte for byte")
    func examplesAreFixtures() throws {
        #expect(try Self.hexBlocks() == FixturesV2.session())
    }

    @Test("the doc's v2 frame decodes to what v1 decodes for the same frame")
    func frameMatchesVersion1() throws {
        var decoder = ServerMessageDecoderV2()
        var frames: [FrameMessage] = []
        for block in try Self.hexBlocks() {
            if case .message(.frame(let f)) = try decoder.decode(block) { frames.append(f) }
        }
        let v1 = try [(FixturesV2.nextFrame, FixturesV2.nextInput, FixturesV2.nextSentAt),
                      (FixturesV2.liftedFrame, FixturesV2.liftedInput, FixturesV2.liftedSentAt),
                      (FixturesV2.bouncingFrame, nil, FixturesV2.bouncingSentAt)].map { frame, input, sentAt in
            try ServerMessageDecoder.decode(ServerMessageEncoder.frame(frame, input: input, sentAt: sentAt))
        }
        #expect(frames.map { ServerMessage.frame($0) } == v1)
    }

    @Test("the sizes the doc gives for its examples are the encoders' sizes")
    func sizesInDoc() throws {
        let doc = try String(contentsOf: DocExamplesTests.docURL, encoding: .utf8)
        let session = FixturesV2.session()
        let v1Frame = ServerMessageEncoder.frame(FixturesV2.nextFrame, input: FixturesV2.nextInput, sentAt: FixturesV2.nextSentAt)
        let v1Snapshot = ServerMessageEncoder.snapshot(Fixtures.snapshot())
        func grouped(_ n: Int) -> String { n >= 1000 ? "\(n / 1000),\(String(format: "%03d", n % 1000))" : "\(n)" }
        #expect(doc.contains("(\(session[0].count) bytes; \(grouped(v1Snapshot.count)) as JSON)"))
        #expect(doc.contains("Example (\(session[1].count) bytes)"))
        #expect(doc.contains("Example (\(session[2].count) bytes; the same frame is \(grouped(v1Frame.count)) bytes as JSON)"))
    }

    /// `SCROLLWIRE_DOC_HEX=FILE swift test --filter DocExamplesV2Tests` writes the session to FILE
    /// as annotated hex, the form the doc shows.
    @Test("annotated dumps cover every byte")
    func annotatedDumps() throws {
        var decoder = ServerMessageDecoderV2()
        var text = ""
        for message in FixturesV2.session() {
            text += "(\(message.count) bytes)\n```hex\n\(try Self.annotated(message, decoder: &decoder))```\n\n"
        }
        if let path = ProcessInfo.processInfo.environment["SCROLLWIRE_DOC_HEX"] {
            try text.write(toFile: path, atomically: true, encoding: .utf8)
        }
    }

    static func annotated(_ bytes: [UInt8], decoder: inout ServerMessageDecoderV2) throws -> String {
        var fields: [(name: String, range: Range<Int>, value: String)] = []
        _ = try decoder.decode(bytes) { fields.append(($0, $1, $2)) }
        var covered = 0
        var out = ""
        for field in fields {
            #expect(field.range.lowerBound == covered, "bytes \(covered)..<\(field.range.lowerBound) not traced")
            covered = field.range.upperBound
            let hex = bytes[field.range].map { String(format: "%02x", $0) }
            var lines = stride(from: 0, to: hex.count, by: 12).map { hex[$0..<min($0 + 12, hex.count)].joined(separator: " ") }
            if lines.isEmpty { lines = [""] }
            let label = field.name.hasPrefix("frame.") || field.name.hasPrefix("texts.")
                ? String(field.name.drop(while: { $0 != "." }).dropFirst()) : field.name
            let value = field.value + meaning(of: field.name, label, field.value, type: bytes[0])
            for (i, line) in lines.enumerated() {
                let padded = line.padding(toLength: 36, withPad: " ", startingAt: 0)
                out += i == 0 ? "\(padded) # \(String(format: "%3d", field.range.lowerBound)) \(label) = \(value)\n" : "\(padded) #\n"
            }
        }
        #expect(covered == bytes.count)
        return out
    }

    /// What a field's raw value stands for, for the dump's comments: units as pt/ms/fractions,
    /// flag and code bits by name.
    static func meaning(of fullName: String, _ name: String, _ raw: String, type: UInt8) -> String {
        let last = String(name.split(separator: ".").last ?? "")
        guard let n = Int64(raw) else { return "" }
        func scaled(_ divisor: Double, _ unit: String) -> String {
            let x = Double(n) / divisor
            return " → \(x == x.rounded() ? String(Int64(x)) : String(x))\(unit)"
        }
        func bits(_ names: [String]) -> String {
            let set = names.enumerated().filter { n & (1 << $0.offset) != 0 }.map(\.element)
            return " (\(set.isEmpty ? "none" : set.joined(separator: ", ")))"
        }
        if name == "type" { return " (\(ServerMessageTypeV2(rawValue: UInt8(n)).map { "\($0)" } ?? "?"))" }
        if name == "head", type == ServerMessageTypeV2.batch.rawValue {
            let kinds = ["?", "pointerDown", "pointerMove", "pointerUp"]
            let kind = Int(n & 15) < kinds.count ? kinds[Int(n & 15)] : "kind \(n & 15)"
            let cause = AppliedCause.allCases.indices.contains(Int(n >> 4 & 7)) ? AppliedCause.allCases[Int(n >> 4 & 7)].rawValue : "?"
            return " (\(kind), \(cause)\(n & 128 != 0 ? ", same viewer, id + 1" : ""))"
        }
        if name == "phase" { return " (\(n < PhaseV2.phases.count ? PhaseV2.phases[Int(n)].rawValue : "?"))" }
        if fullName == "frame.flags" { return bits(["animating", "input", "panel", "lifted", "placeholder", "settling"]) }
        if fullName == "flags" {
            switch ServerMessageTypeV2(rawValue: type) {
            case .snapshot?: return bits(["driver", "locked", "driverKey", "background", "resume"])
            case .resumed?: return bits(["driver", "locked", "driverKey"])
            case .presence?: return bits(["driver", "locked", "exploring", "granted"])
            case .granted?: return bits(["grant"])
            case .refused?: return bits(["input"])
            default: return ""
            }
        }
        if name.hasPrefix("scene.sections"), last.hasPrefix("rows[") { return " (Δ)" }
        if last == "code" {
            let path = ["next row", "next section", "s, r follow", "?"][Int(n) & 3]
            var parts = [path]
            if n & 4 != 0 { parts.append("id Δ follows") }
            if n & 8 != 0 { parts.append("y Δ follows") }
            if n & 16 != 0 { parts.append("h follows") }
            return " (\(parts.joined(separator: ", ")))"
        }
        if name.hasSuffix("].id"), name.hasPrefix("rows") || name.contains("sections[") { return " (Δ)" }
        if name == "lifted.id" { return " (the id itself, not a Δ)" }
        if ["alpha", "lift"].contains(last) { return scaled(1000, "") }
        if ["t", "sentAt"].contains(last) { return scaled(100, " ms") }
        if last == "y", name.hasPrefix("rows") || name.hasPrefix("layers") { return " (Δ)" + scaled(100, " pt") }
        if ["x", "y"].contains(last), name.hasPrefix("panel") { return " (Δ)" + scaled(100, " pt") }
        if ["x", "y", "w", "h", "width", "height", "offset", "contentHeight"].contains(last) { return scaled(100, " pt") }
        return ""
    }
}
