import ScrollEngine
import ScrollcastRooms
import Testing
@testable import ScrollReplica
import ScrollWire

@Suite("Engine replica")
struct EngineReplicaTests {
    @Test("the replica builds exactly the catalogue's scenes, by the same names")
    func scenesMatchTheCatalogue() {
        #expect(ReplicaScenes.names == SceneCatalogue.standard.entries.map { $0.name })
        for name in ReplicaScenes.names {
            #expect(ReplicaScenes.configuration(named: name) == SceneCatalogue.standard.configuration(named: name))
        }
        #expect(ReplicaScenes.configuration(named: "tomorrow") == nil)
        #expect(EngineReplica(sceneNamed: "") == nil)
    }

    @Test("every kind code stands for its input; out-of-range choices stand for none")
    func inputCodes() {
        let codes: [(InputCode, InputKind?)] = [
            (InputCode(kind: 1, a: 3, b: 4), .pointerDown(Point(x: 3, y: 4))),
            (InputCode(kind: 2, a: 3, b: 4), .pointerMoved(Point(x: 3, y: 4))),
            (InputCode(kind: 3, a: 3, b: 4), .pointerUp(Point(x: 3, y: 4))),
            (InputCode(kind: 4), .pointerCancelled),
            (InputCode(kind: 5, a: 1, b: -2, c: 1), .wheel(dx: 1, dy: -2, mode: .line)),
            (InputCode(kind: 6, a: 7), .key(.end)),
            (InputCode(kind: 7, a: 2, b: 5, c: 2, d: 1),
             .scrollToRow(IndexPath(section: 2, row: 5), position: .middle, animated: true)),
            (InputCode(kind: 8, a: 1, b: 2), .longPressBegan(Point(x: 1, y: 2))),
            (InputCode(kind: 9, a: 1, b: 2), .longPressMoved(Point(x: 1, y: 2))),
            (InputCode(kind: 10, a: 1, b: 2), .longPressEnded(Point(x: 1, y: 2))),
            (InputCode(kind: 11), .longPressCancelled),
            (InputCode(kind: 12, a: 320, b: 480), .resize(Size(width: 320, height: 480))),
            (InputCode(kind: 13, a: 1), .reducedMotion(true)),
            (InputCode(kind: 0), nil), (InputCode(kind: 14), nil),
            (InputCode(kind: 5, c: 3), nil), (InputCode(kind: 6, a: 8), nil), (InputCode(kind: 6, a: 0.5), nil),
            (InputCode(kind: 7, a: -1, b: 0, c: 0), nil), (InputCode(kind: 7, a: 0, b: 3e9, c: 0), nil),
            (InputCode(kind: 7, a: 0, b: 0, c: .nan), nil),
        ]
        for (code, kind) in codes { #expect(code.kindValue == kind, "\(code)") }
    }

    @Test("the replica's frames are what the room's encoder writes, and the v2 decoder reads them back")
    func framesDecode() throws {
        var replica = try #require(EngineReplica(sceneNamed: "demo"))
        var scene = ScrollScene(configuration: DemoScene.configuration())
        var table = WireTextTable()
        var decoder = ServerMessageDecoderV2()
        let inputs: [InputKind] = [.pointerDown(Point(x: 100, y: 500)), .pointerMoved(Point(x: 100, y: 400)),
                                   .pointerMoved(Point(x: 100, y: 200)), .pointerUp(Point(x: 100, y: 150))]
        for (i, kind) in inputs.enumerated() {
            let event = InputEvent(id: UInt64(i + 1), time: Double(i) * 10, kind: kind)
            #expect(replica.apply(event, viewer: "v") == .applied)
            _ = try scene.apply(event)
        }
        for (sequence, t) in [30.0, 100, 400, 2500].enumerated() {
            let got = replica.frame(at: t, sequence: UInt64(sequence), sentAt: 5)
            var frame = scene.frame(at: t)
            frame.sequence = UInt64(sequence)
            let expected = ServerMessageEncoderV2.frame(frame, input: AppliedInput(viewer: "v", id: 4), sentAt: 5, texts: &table,
                                                        ahead: { WireTextTable.upcoming(around: frame, in: scene.sections) })
            #expect(got.bytes == expected.frame)
            #expect(got.texts == expected.texts)
            if let texts = got.texts { _ = try decoder.decode(texts) }
            guard case .message(.frame(let decoded)) = try decoder.decode(got.bytes) else {
                Issue.record("not a frame"); return
            }
            #expect(decoded.offset == frame.roundedForWire().contentOffset)
            #expect(decoded.rows == frame.roundedForWire().rows)
        }
    }

    @Test("with the server's texts the replica registers nothing, so its frames compare with the server's")
    func serverTexts() throws {
        var replica = try #require(EngineReplica(sceneNamed: "seed-table"))
        var serverTable = WireTextTable()
        _ = serverTable.register(replica.scene.frame(at: 0))
        replica.useServerTexts(serverTable)
        let first = replica.frame(at: 0, sequence: 1, sentAt: 0)
        #expect(first.texts == nil)
        #expect(replica.texts == serverTable)
        _ = replica.apply(InputEvent(id: 1, time: 1, kind: .key(.end)), viewer: "v")
        _ = replica.frame(at: 2000, sequence: 2, sentAt: 0)
        #expect(replica.texts == serverTable)
    }

    @Test("restore puts rows in the given order at rest, and refuses an order that loses rows")
    func restore() throws {
        var replica = try #require(EngineReplica(sceneNamed: "seed-table"))
        var order = replica.scene.configuration.rowOrder
        order[0].swapAt(0, 19)
        let restored = replica.restore(order: order, viewport: Size(width: 320, height: 480), restingAt: 200)
        #expect(restored)
        #expect(replica.scene.configuration.rowOrder == order)
        let frame = replica.scene.frame(at: 0)
        #expect(frame.contentOffset == 200)
        #expect(frame.viewport == Size(width: 320, height: 480))
        #expect(!frame.isAnimating)
        let lostRow = replica.restore(order: [Array(order[0].dropLast())], viewport: Size(width: 320, height: 480), restingAt: 0)
        let noSize = replica.restore(order: order, viewport: Size(width: 0, height: 480), restingAt: 0)
        #expect(!lostRow && !noSize)
        #expect(replica.scene.configuration.rowOrder == order)
    }

    @Test("the cross-check's scripts reproduce from their seed and cover every input kind and outcome")
    func scriptsCoverEverything() {
        var kinds = Set<Int>(), codes = Set<Int>(), wheelModes = Set<Int>(), keys = Set<Int>()
        var restored = 0, frames = 0
        for seed in UInt64(0)..<150 {
            let script = CrossCheckScript(seed: seed)
            if script.restore != nil { restored += 1 }
            let expect = CrossCheckRun.run(script).expect
            if seed % 10 == 0 { #expect(expect == CrossCheckRun.run(CrossCheckScript(seed: seed)).expect) }
            for (i, step) in script.steps.enumerated() {
                switch step {
                case .apply(let code, _, _, _):
                    kinds.insert(code.kind)
                    codes.insert(Int(expect[i * 3]))
                    if code.kind == InputCode.Kind.wheel { wheelModes.insert(Int(code.c)) }
                    if code.kind == InputCode.Kind.key { keys.insert(Int(code.a)) }
                case .frame: frames += 1
                }
            }
        }
        #expect(kinds == Set(1...13))
        #expect(wheelModes == [0, 1, 2])
        #expect(keys == Set(0...7))
        #expect(codes.isSuperset(of: [0, 1, -1, -3, -4, -5]))
        #expect(restored > 15)
        #expect(frames > 150 * 20)
    }
}
