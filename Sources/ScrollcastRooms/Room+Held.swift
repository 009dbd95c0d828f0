import ScrollEngine
import ScrollWire

/// Inputs held for their time (docs/protocol.md, "Driving on the room's clock"): an input stamped
/// with an `at` ahead of the room's present waits here until the room reaches it, and is then
/// applied at exactly that time, judged (claims, the engine) as any input is when it is applied.
/// The frame timer wakes for the earliest (`nextTickDue`). A viewer's later inputs queue behind
/// its held ones, so each viewer's inputs keep their order; a leave drops the leaver's.
extension Room {
    /// An input waiting for its room time.
    struct HeldInput {
        let input: InputMessage
        let viewer: String
        /// Room time it is applied at.
        let due: Double
    }

    /// The earliest room time a new change may take: never before a time already given to the
    /// engine, and after every complete-history mark sent (`Room+Complete.swift`).
    var changeFloor: Double { max(lastInputTime, complete.nextUp) }

    /// `changeFloor` for viewer `id`'s next input: not before its own held inputs either.
    func changeFloor(for id: String) -> Double {
        held.last { $0.viewer == id }.map { max($0.due, changeFloor) } ?? changeFloor
    }

    /// The time of a change the room makes of itself now (a leave's cancel, a take-back): the
    /// present, on the grid of input times (`RoomTime`), never before `changeFloor`.
    var changeTimeNow: Double { RoomTime.stamp(now, floor: changeFloor) }

    /// Holds `input` of viewer `id` until room time `due`, after the inputs held for that time
    /// or earlier (so ties keep their arrival order).
    func hold(_ input: InputMessage, from id: String, until due: Double) {
        let index = held.firstIndex { $0.due > due } ?? held.count
        held.insert(HeldInput(input: input, viewer: id, due: due), at: index)
        restBeatOwed = true
    }

    /// Tells viewer `id` that its input `inputID`, heard at room time `heard`, waits until `due`:
    /// the only way its clock learns how far ahead it stamps (docs/protocol.md, `held`).
    func tellHeld(_ inputID: UInt64, heardAt heard: Double, until due: Double, to id: String) {
        guard let version = viewers.first(where: { $0.id == id })?.version else { return }
        let message = HeldMessage(input: inputID, time: heard, at: due)
        let form = OutgoingMessage.encoded(for: version, v1: { ServerMessageEncoder.held(message) },
                                           v2: { ServerMessageEncoderV2.held(message) })
        channel.send(RoomMessage(form, for: version), to: .viewer(id))
    }

    /// Applies, in room-time order, every held input due by `limit`; true when the scene changed
    /// (the caller requests the frame). Each leaves the queue before it is applied, so whatever
    /// applying it sets off sees the queue without it.
    @discardableResult
    func releaseHeld(dueBy limit: Double) -> Bool {
        var changed = false
        while let first = held.first, first.due <= limit {
            held.removeFirst()
            if apply(first.input, from: first.viewer, at: RoomTime.stamp(first.due, floor: changeFloor)) { changed = true }
        }
        return changed
    }
}
