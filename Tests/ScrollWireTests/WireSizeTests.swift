import Testing
import ScrollEngine
@testable import ScrollWire

/// How many bytes a frame costs in each version on a realistic session: the demo scene driven by
/// the load generator's `drag` script (slow drags of 1–5 pt every 8–16 ms, rest, release), with
/// a frame per input and one per 60 Hz period while anything moves, as a room sends them.
@Suite("Wire size, version 1 vs 2")
struct WireSizeTests {
    struct Session {
        var frames: [(frame: EffectFrame, input: AppliedInput?, sentAt: Double)] = []
        /// The room's row order (for the rows a frame is about to show).
        var sections: [TableSection] = []
    }

    enum Script { case drag, fling }

    /// The drag (or fling) script of `scrollcast-load --script drag|fling`
    /// (Sources/scrollcast-load/GestureScript.swift), played on the demo scene, sampled as a room
    /// samples it.
    static func dragSession(gestures: Int, seed: UInt64 = 7, script: Script = .drag) throws -> Session {
        var rng = SeededRandom(seed: seed)
        var scene = ScrollScene(configuration: DemoScene.configuration())
        var session = Session()
        var now = 0.0, lastFrame = -1000.0, nextID: UInt64 = 1, sequence: UInt64 = 0
        var applied: AppliedInput?
        var goingDown = true
        let period = 1000.0 / 60
        func emit(at t: Double) {
            sequence += 1
            var frame = scene.frame(at: t)
            frame.sequence = sequence
            session.frames.append((frame, applied, 1_763_800_000_000 + t))
            lastFrame = t
        }
        /// Animation frames every period until `t`, then (for an input at `t`) one at `t`.
        func runUntil(_ t: Double) {
            while lastFrame + period <= t, scene.frame(at: lastFrame).isAnimating { emit(at: lastFrame + period) }
        }
        func gap() -> Double { Double.random(in: 8...16, using: &rng) }
        for _ in 0..<gestures {
            if Double.random(in: 0..<1, using: &rng) < 0.25 { goingDown.toggle() }
            let sign: Double = goingDown ? -1 : 1
            var inputs: [(Double, InputKind)]
            var time: Double
            let length: Double
            switch script {
            case .drag:
                var point = Point(x: Double.random(in: 100...290, using: &rng), y: sign < 0 ? 700 : 260)
                inputs = [(0, .pointerDown(point))]
                time = gap()
                point.y += sign * 14
                inputs.append((time, .pointerMoved(point)))
                for _ in 0..<Int.random(in: 30...90, using: &rng) {
                    time += gap()
                    point.y += sign * Double.random(in: 1...5, using: &rng)
                    inputs.append((time, .pointerMoved(point)))
                }
                time += Double.random(in: 120...200, using: &rng)
                inputs.append((time, .pointerUp(point)))
                length = time + Double.random(in: 200...600, using: &rng)
            case .fling:
                var point = Point(x: Double.random(in: 120...270, using: &rng),
                                  y: sign < 0 ? Double.random(in: 600...760, using: &rng) : Double.random(in: 260...400, using: &rng))
                inputs = [(0, .pointerDown(point))]
                time = 0
                for step in 0..<Int.random(in: 6...12, using: &rng) {
                    time += gap()
                    point.y += sign * (8 + Double(step) * Double.random(in: 2...5, using: &rng))
                    point.x += Double.random(in: -2...2, using: &rng)
                    inputs.append((time, .pointerMoved(point)))
                }
                time += gap()
                point.y += sign * 20
                inputs.append((time, .pointerUp(point)))
                length = time + Double.random(in: 400...1500, using: &rng)
            }
            let start = now
            for (at, kind) in inputs {
                let t = start + at
                runUntil(t)
                _ = try scene.apply(InputEvent(id: nextID, time: t, kind: kind))
                applied = AppliedInput(viewer: "v1", id: nextID)
                nextID += 1
                emit(at: max(t, lastFrame + period / 2))
            }
            now = start + length
            runUntil(now)
        }
        session.sections = scene.sections
        return session
    }

    /// Texts messages a session needs, and their bytes, with or without the rows ahead.
    static func texts(of session: Session, ahead: Bool) -> (messages: Int, bytes: Int, frames: Int) {
        var table = WireTextTable()
        var messages = 0, bytes = 0
        for (frame, input, sentAt) in session.frames {
            let encoded = ServerMessageEncoderV2.frame(frame, input: input, sentAt: sentAt, texts: &table, ahead: {
                ahead ? WireTextTable.upcoming(around: frame, in: session.sections) : UpcomingTexts()
            })
            if let texts = encoded.texts { messages += 1; bytes += texts.count }
        }
        return (messages, bytes, session.frames.count)
    }

    @Test("rows ahead batch the texts: a fling sends them on few frames, not on nearly every one")
    func textsInBatches() throws {
        for script in [Script.fling, .drag] {
            let session = try Self.dragSession(gestures: 40, script: script)
            let without = Self.texts(of: session, ahead: false)
            let with = Self.texts(of: session, ahead: true)
            print("texts on the \(script) script (\(session.frames.count) frames): \(without.messages) messages, "
                  + "\(without.bytes) bytes without the rows ahead; \(with.messages) messages, \(with.bytes) bytes "
                  + "with 32 rows ahead on each side")
            #expect(with.messages * 3 < without.messages)
        }
    }

    @Test("mean bytes per frame on the drag script: version 2 is at most a tenth of version 1")
    func dragScript() throws {
        let session = try Self.dragSession(gestures: 40)
        var table = WireTextTable()
        var decoder = ServerMessageDecoderV2()
        var v1Bytes = 0, v2Bytes = 0, textsBytes = 0, textsMessages = 0
        var unchangedBytes = 0, fieldCount = 0
        var previousFields: [String: ArraySlice<UInt8>] = [:]
        for (frame, input, sentAt) in session.frames {
            v1Bytes += ServerMessageEncoder.frame(frame, input: input, sentAt: sentAt).count
            let encoded = ServerMessageEncoderV2.frame(frame, input: input, sentAt: sentAt, texts: &table, ahead: {
                WireTextTable.upcoming(around: frame, in: session.sections)
            })
            v2Bytes += encoded.frame.count
            if let texts = encoded.texts {
                textsBytes += texts.count
                textsMessages += 1
                _ = try decoder.decode(texts)
            }
            // Which fields repeat the previous frame's bytes: what a delta could leave out.
            var fields: [String: ArraySlice<UInt8>] = [:]
            _ = try decoder.decode(encoded.frame) { name, range, _ in fields[name] = encoded.frame[range] }
            for (name, bytes) in fields where previousFields[name] == bytes { unchangedBytes += bytes.count }
            fieldCount += fields.count
            previousFields = fields
        }
        let n = Double(session.frames.count)
        let v1 = Double(v1Bytes) / n, v2 = Double(v2Bytes) / n
        let v2WithTexts = Double(v2Bytes + textsBytes) / n
        let unchanged = Double(unchangedBytes) / n
        let deltaSaving = unchanged - Double(fieldCount) / n / 8
        print("""
            wire size on the drag script (\(session.frames.count) frames, \(Int(n / 60)) s at 60 Hz):
              v1 mean bytes per frame: \(Self.format(v1))
              v2 mean bytes per frame: \(Self.format(v2)) (\(Self.format(100 * v2 / v1)) % of v1)
              v2 with its texts messages spread over the frames: \(Self.format(v2WithTexts)) (\(Self.format(100 * v2WithTexts / v1)) %); \
            \(textsMessages) texts messages, \(textsBytes) bytes, \(table.all.rows.count) rows
              fields repeating the previous frame: \(Self.format(unchanged)) bytes per frame; a field-level delta \
            (1 bit a field) would save at most \(Self.format(deltaSaving)) bytes (\(Self.format(100 * deltaSaving / v2)) % of v2)
            """)
        #expect(session.frames.count > 1000)
        #expect(v1 > 1500, "the session should look like the bench's (1,831 bytes a frame)")
        #expect(v2 <= v1 / 10)
        #expect(v2WithTexts <= v1 / 10)
    }

    static func format(_ x: Double) -> String {
        let scaled = (x * 10).rounded() / 10
        return scaled == scaled.rounded() ? String(Int(scaled)) : String(scaled)
    }
}
