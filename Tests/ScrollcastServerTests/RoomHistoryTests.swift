import Testing
import ScrollEngine
import ScrollWire
@testable import ScrollcastRooms

/// The room's history for resumes on its own: what it replays, when it answers with a snapshot
/// instead, and that it stays within its limits.
@Suite("Room history")
@RoomActor struct RoomHistoryTests {
    static let life: UInt64 = 77

    static func move(_ rowMoveVersion: Int) -> RoomHistory.RowMove {
        RoomHistory.RowMove(rowID: rowMoveVersion, from: IndexPath(section: 0, row: 1), to: IndexPath(section: 0, row: 3),
                            by: "v1", rowMoveVersion: rowMoveVersion)
    }

    /// Moves 1 and 2 after frames 10 and 20, texts after frame 15.
    static func history() -> RoomHistory {
        var history = RoomHistory(firstSequence: 0)
        history.record(.rowMoved(move(1)), afterFrame: 10)
        history.record(.texts([3, 0, 0, 0]), afterFrame: 15)
        history.record(.rowMoved(move(2)), afterFrame: 20)
        return history
    }

    func decide(_ history: RoomHistory, seq: UInt64, rowMoveVersion: Int, life: UInt64 = Self.life,
                version: WireVersion = .v1) -> RoomHistory.Decision {
        history.decide(ResumeRequest(life: life, seq: seq, rowMoveVersion: rowMoveVersion), life: Self.life, sequence: 30,
                       rowMoveVersion: 2, version: version)
    }

    @Test func replaysTheMovesAViewerMissedInOrder() {
        let history = Self.history()
        #expect(decide(history, seq: 12, rowMoveVersion: 1) == .replay(moves: [Self.move(2)], texts: []))
        #expect(decide(history, seq: 5, rowMoveVersion: 0) == .replay(moves: [Self.move(1), Self.move(2)], texts: []))
        // A move announced right after the viewer's last frame may or may not have reached it:
        // its count says.
        #expect(decide(history, seq: 10, rowMoveVersion: 1) == .replay(moves: [Self.move(2)], texts: []))
        #expect(decide(history, seq: 10, rowMoveVersion: 0) == .replay(moves: [Self.move(1), Self.move(2)], texts: []))
        #expect(decide(history, seq: 30, rowMoveVersion: 2) == .replay(moves: [], texts: []))
    }

    @Test func versionTwoAlsoGetsTheTextsSentSinceItsFrame() {
        let history = Self.history()
        #expect(decide(history, seq: 12, rowMoveVersion: 1, version: .v2) == .replay(moves: [Self.move(2)], texts: [[3, 0, 0, 0]]))
        #expect(decide(history, seq: 16, rowMoveVersion: 1, version: .v2) == .replay(moves: [Self.move(2)], texts: []))
    }

    @Test func anythingItCannotVouchForGetsASnapshot() {
        let history = Self.history()
        #expect(decide(history, seq: 12, rowMoveVersion: 1, life: 78) == .snapshot(.otherLife))
        #expect(decide(history, seq: 31, rowMoveVersion: 2) == .snapshot(.seqNeverSent))
        #expect(decide(history, seq: 12, rowMoveVersion: 3) == .snapshot(.movesNeverMade))
        // By frame 25 the viewer had been sent both moves: claiming fewer is not a real state.
        #expect(decide(history, seq: 25, rowMoveVersion: 1) == .snapshot(.movesInconsistent))
    }

    @Test func aRestartedTextTableSendsVersionTwoASnapshotButNotVersionOne() {
        var history = Self.history()
        history.record(.textsReset, afterFrame: 22)
        #expect(decide(history, seq: 21, rowMoveVersion: 2, version: .v2) == .snapshot(.textsRestarted))
        #expect(decide(history, seq: 23, rowMoveVersion: 2, version: .v2) == .replay(moves: [], texts: []))
        #expect(decide(history, seq: 21, rowMoveVersion: 2, version: .v1) == .replay(moves: [], texts: []))
    }

    @Test func itKeepsAtMostItsLimitsAndResumesBeforeWhatItDroppedGetASnapshot() {
        var history = RoomHistory(firstSequence: 0, limits: .init(maxRecords: 4, maxBytes: 1000))
        for rowMoveVersion in 1...10 { history.record(.rowMoved(Self.move(rowMoveVersion)), afterFrame: UInt64(rowMoveVersion * 10)) }
        #expect(history.count == 4)
        #expect(history.horizon == 61, "moves 1…6 dropped; the last after frame 60")
        let request = { (seq: UInt64, rowMoveVersion: Int) in ResumeRequest(life: Self.life, seq: seq, rowMoveVersion: rowMoveVersion) }
        #expect(history.decide(request(55, 5), life: Self.life, sequence: 200, rowMoveVersion: 10, version: .v1) == .snapshot(.beyondHistory))
        #expect(history.decide(request(65, 6), life: Self.life, sequence: 200, rowMoveVersion: 10, version: .v1)
                == .replay(moves: (7...10).map(Self.move), texts: []))

        var bytes = RoomHistory(firstSequence: 0, limits: .init(maxRecords: 100, maxBytes: 1000))
        for frame in 1...20 { bytes.record(.texts([UInt8](repeating: 3, count: 300)), afterFrame: UInt64(frame)) }
        #expect(bytes.byteCount <= 1000 && bytes.count == 3)
        #expect(bytes.horizon == 18)
    }
}
