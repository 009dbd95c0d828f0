import Foundation
import Testing
import ScrollEngine
import ScrollcastRooms
@testable import ScrollcastStore

/// Every kind of input, with awkward numbers, written to the file and read back identical.
@Suite("Room log encoding")
@RoomActor struct RoomLogTests {
    /// One of each `InputKind` case; `caseName` fails to compile when a case is added, so this
    /// list cannot silently fall behind.
    nonisolated static let everyKind: [InputKind] = [
        .pointerDown(Point(x: 0.1 + 0.2, y: -0.0)),
        .pointerMoved(Point(x: 1e-300, y: 123_456_789.123_456_7)),
        .pointerUp(Point(x: -5.5, y: .greatestFiniteMagnitude)),
        .pointerCancelled,
        .wheel(dx: -3, dy: 120.25, mode: .pixel),
        .wheel(dx: 0, dy: 1, mode: .line),
        .wheel(dx: 0, dy: -1, mode: .page),
        .key(.arrowUp), .key(.shiftSpace), .key(.end),
        .scrollToRow(IndexPath(section: 1, row: 5), position: .middle, animated: true),
        .scrollToRow(IndexPath(section: 0, row: 0), position: .none, animated: false),
        .longPressBegan(Point(x: 150, y: 412.5)),
        .longPressMoved(Point(x: 150, y: 500.000_000_000_1)),
        .longPressEnded(Point(x: 151, y: 600)),
        .longPressCancelled,
        .resize(Size(width: 390, height: 844)),
        .reducedMotion(true), .reducedMotion(false),
    ]

    static func caseName(_ kind: InputKind) -> String {
        switch kind {
        case .pointerDown: "pointerDown"
        case .pointerMoved: "pointerMoved"
        case .pointerUp: "pointerUp"
        case .pointerCancelled: "pointerCancelled"
        case .wheel: "wheel"
        case .key: "key"
        case .scrollToRow: "scrollToRow"
        case .longPressBegan: "longPressBegan"
        case .longPressMoved: "longPressMoved"
        case .longPressEnded: "longPressEnded"
        case .longPressCancelled: "longPressCancelled"
        case .resize: "resize"
        case .reducedMotion: "reducedMotion"
        }
    }

    @Test func theListHasEveryCase() {
        #expect(Set(Self.everyKind.map(Self.caseName)).count == 13)
    }

    @Test(arguments: everyKind)
    func eachKindReadsBackAsItWasWritten(_ kind: InputKind) throws {
        let text = InputKindCoding.encode(kind)
        let decoded = try #require(InputKindCoding.decode(text), "\(text)")
        #expect(decoded == kind)
        #expect(text.hasPrefix(Self.caseName(kind)))
    }

    @Test func negativeZeroKeepsItsSign() throws {
        guard case .pointerDown(let p) = try #require(InputKindCoding.decode(InputKindCoding.encode(.pointerDown(Point(x: 0, y: -0.0))))) else {
            Issue.record("wrong case"); return
        }
        #expect(p.y.sign == .minus)
    }

    @Test(arguments: ["", "pointerDown 1", "pointerDown 1 2 3", "wheel 1 2 inch", "key sideways", "reducedMotion yes",
                      "scrollToRow 1 x top 1", "warp 1 2", "pointerCancelled 1"])
    func textItDidNotWriteIsRefused(_ text: String) {
        #expect(InputKindCoding.decode(text) == nil)
    }

    @Test func theLogReadsBackExactlyAfterReopening() throws {
        let fixture = StoreFixture()
        var entries: [RoomLogEntry] = []
        var time = 0.0
        for (index, kind) in Self.everyKind.enumerated() {
            time += 16.666_666_666_666_668
            let id: UInt64 = index == 0 ? .max : UInt64(index)
            entries.append(.input(viewer: "v\(index % 3 + 1)", event: InputEvent(id: id, time: time, kind: kind)))
            entries.append(.frame(sequence: UInt64(index + 1), time: time + 0.5))
        }
        entries.append(.cancel(viewer: "v2", event: InputEvent(id: 7, time: time + 1, kind: .pointerCancelled), cause: .leave))
        entries.append(.cancel(viewer: "v3", event: InputEvent(id: 8, time: time + 2, kind: .longPressCancelled),
                               cause: .unavailable))
        entries.append(.cancel(viewer: "v1", event: InputEvent(id: 9, time: time + 2, kind: .pointerCancelled), cause: .takeBack))
        entries.append(.frame(sequence: .max, time: time + 3))

        let store = try fixture.openStore()
        store.roomCreated(RoomSettings(name: "r", sceneName: "demo", driverKeyDigest: nil))
        store.roomCreated(RoomSettings(name: "other", sceneName: "demo", driverKeyDigest: nil))
        for entry in entries {
            store.append(entry, toRoom: "r")
            store.append(.frame(sequence: 1, time: 1), toRoom: "other")
        }
        store.close()

        let reopened = try fixture.openStore()
        #expect(try reopened.log(ofRoom: "r").map(\.entry) == entries)
        #expect(try reopened.log(ofRoom: "r").allSatisfy { $0.life == 1 })
        #expect(try reopened.log(ofRoom: "other").count == entries.count)
        reopened.close()
    }
}
