import Testing
import ScrollEngine
import ScrollReplica
import ScrollWire
@testable import scrollcast_load

/// `--replica`'s check (`RoomReplica`) fed with what a room sends: frames a room computed from
/// a wheel input compare identical at every connection, and a frame altered by one byte, at the
/// reference or at another connection, is a mismatch described with room, seq and both frames.
@Suite struct RoomReplicaTests {
    /// A room's messages in version 1: the snapshot at rest, an `applied` wheel input after seq
    /// 0, then `count` frames (seq 1...) of the scrolling it starts.
    static func roomMessages(count: Int) -> (snapshot: [UInt8], applied: [UInt8], frames: [[UInt8]]) {
        var room = EngineReplica(sceneNamed: "demo")!
        var rest = room.scene.frame(at: 0)
        rest.sequence = 0
        let snapshot = Snapshot(room: "r-0", viewer: "v1", viewers: 2, driver: nil, configuration: room.scene.configuration,
                                sections: room.scene.sections, frame: rest, frameInput: nil, frameSentAt: 1, sceneName: "demo")
        let wheel = InputKind.wheel(dx: 0, dy: 240, mode: .pixel)
        _ = room.apply(InputEvent(id: 1, time: 10, kind: wheel), viewer: "v1")
        let applied = AppliedMessage(after: 0, time: 10, viewer: "v1", id: 1, cause: .input, change: .input(wheel))
        let frames = (1...count).map { seq in
            let frame = room.frame(at: 10 + Double(seq) * 16, sequence: UInt64(seq), sentAt: 2).frame
            return ServerMessageEncoder.frame(frame, input: room.lastApplied, sentAt: 2)
        }
        return (ServerMessageEncoder.snapshot(snapshot), ServerMessageEncoder.applied(applied), frames)
    }

    /// Feeds the reference (connection 0) its messages and its frame, as `LoadShard` does.
    static func reference(_ replica: inout RoomReplica, _ bytes: [UInt8], counts: inout ReplicaCounts) {
        bytes.withUnsafeBufferPointer { replica.referenceMessage($0, connection: 0, into: &counts) }
    }

    /// A room's replica whose reference has its snapshot and the wheel input, and the frames to come.
    static func started(frames count: Int) -> (RoomReplica, ReplicaCounts, [[UInt8]]) {
        let (snapshot, applied, frames) = roomMessages(count: count)
        var replica = RoomReplica(room: "r-0", version: .v1)
        var counts = ReplicaCounts()
        reference(&replica, snapshot, counts: &counts)
        reference(&replica, applied, counts: &counts)
        return (replica, counts, frames)
    }

    static func frame(_ replica: inout RoomReplica, _ bytes: [UInt8], seq: Int, connection: Int, counts: inout ReplicaCounts) {
        if connection == 0 { reference(&replica, bytes, counts: &counts) }
        bytes.withUnsafeBufferPointer { replica.frame(seq: UInt64(seq), bytes: $0, connection: connection, into: &counts) }
    }

    /// `bytes` with its last digit 1...8 one higher: still a well-formed frame, with another number.
    static func altered(_ bytes: [UInt8]) -> [UInt8] {
        var bytes = bytes
        let digit = bytes.lastIndex { $0 >= UInt8(ascii: "1") && $0 <= UInt8(ascii: "8") }!
        bytes[digit] += 1
        return bytes
    }

    @Test func everyConnectionsFramesCompareIdentical() {
        let (snapshot, applied, frames) = Self.roomMessages(count: 20)
        var replica = RoomReplica(room: "r-0", version: .v1)
        var counts = ReplicaCounts()
        Self.reference(&replica, snapshot, counts: &counts)
        #expect(replica.reference == 0)
        Self.reference(&replica, applied, counts: &counts)
        for (index, bytes) in frames.enumerated() {
            let seq = index + 1
            // Connection 1 gets odd seqs before the reference (parked until it has them).
            if seq % 2 == 1 { Self.frame(&replica, bytes, seq: seq, connection: 1, counts: &counts) }
            Self.frame(&replica, bytes, seq: seq, connection: 0, counts: &counts)
            if seq % 2 == 0 { Self.frame(&replica, bytes, seq: seq, connection: 1, counts: &counts) }
        }
        #expect(counts.compared == 40 && counts.identical == 40 && counts.mismatches == 0 && counts.notCompared == 0)
        #expect(replica.unresolved() == 0)
    }

    @Test func anAlteredFrameIsAMismatchWithBothFramesInHex() {
        var (replica, counts, frames) = Self.started(frames: 10)
        for (index, bytes) in frames.enumerated() {
            let seq = index + 1
            Self.frame(&replica, bytes, seq: seq, connection: 0, counts: &counts)
            // Seq 5 reaches connection 1 with one digit changed.
            Self.frame(&replica, seq == 5 ? Self.altered(bytes) : bytes, seq: seq, connection: 1, counts: &counts)
        }
        #expect(counts.compared == 20 && counts.mismatches == 1 && counts.identical == 19)
        let example = counts.mismatchExamples.first ?? ""
        #expect(example.hasPrefix("room r-0 seq 5 node 0 connection 1 (replica had matched 5 frames, waited 0): replica \(RoomReplica.hex(frames[4])) server "))
    }

    @Test func aMismatchAtTheReferenceStopsItsReplicaUntilTheRoomRests() {
        var (replica, counts, frames) = Self.started(frames: 6)
        Self.frame(&replica, frames[0], seq: 1, connection: 0, counts: &counts)
        Self.frame(&replica, Self.altered(frames[1]), seq: 2, connection: 0, counts: &counts)
        Self.frame(&replica, frames[1], seq: 2, connection: 1, counts: &counts)
        // The room is still scrolling: seq 3 starts nothing, so it is not compared anywhere.
        Self.frame(&replica, frames[2], seq: 3, connection: 0, counts: &counts)
        Self.frame(&replica, frames[2], seq: 3, connection: 1, counts: &counts)
        // Seq 1 at the reference and seq 2 at connection 1 (the replica's bytes) are identical.
        #expect(counts.identical == 2 && counts.mismatches == 1 && counts.notCompared == 2)
    }

    @Test func appliedMessagesAreToldFromTheirFront() {
        let (_, applied, frames) = Self.roomMessages(count: 1)
        let message = AppliedMessage(after: 0, time: 10, viewer: "v1", id: 1, cause: .input, change: .input(.key(.pageDown)))
        let v2 = ServerMessageEncoderV2.applied(message)
        #expect(applied.withUnsafeBufferPointer { RoomReplica.isApplied($0, version: .v1) })
        #expect(v2.withUnsafeBufferPointer { RoomReplica.isApplied($0, version: .v2) })
        #expect(!frames[0].withUnsafeBufferPointer { RoomReplica.isApplied($0, version: .v1) })
    }
}
