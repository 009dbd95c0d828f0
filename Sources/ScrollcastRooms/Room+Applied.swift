import ScrollEngine
import ScrollWire

/// `applied` messages (docs/protocol.md, "Inputs applied"): every change the room makes to its
/// scene, sent reliably and in order to the viewers whose join asked (`inputs: true`), each
/// stamped with the last frame sent before it. A replica of the engine fed only these, from a
/// snapshot at rest, computes every later frame byte for byte. Nothing is encoded while no
/// viewer asked.
extension Room {
    /// Room time of a frame: `time` rounded up to the wire's 0.01 ms, so the `t` a viewer decodes
    /// is the very time the frame was computed at (a replica asks its engine for that time).
    static func frameTime(_ time: Double) -> Double {
        guard time.isFinite, abs(time) < 1e13 else { return time }
        var units = (time * 100).rounded(.up)
        if units / 100 < time { units += 1 }
        return units / 100
    }

    /// Tells the watchers that the scene applied `event` (from, or on behalf of, `viewer`).
    func relayApplied(_ event: InputEvent, viewer: String, cause: AppliedCause) {
        let change = AppliedMessage(after: sequence, time: event.time, viewer: viewer, id: event.id, cause: cause,
                                    change: .input(event.kind))
        recordChange(change)
        relay(change)
    }

    /// Tells the watchers that the rows were put back in `order`, at rest, at room time `time`.
    func relayRowOrder(_ order: [[Int]], at time: Double) {
        let change = AppliedMessage(after: sequence, time: time, viewer: nil, id: 0, cause: .takeBack, change: .rowOrder(order))
        recordChange(change)
        relay(change)
    }

    /// Holds `message` for the next frame: as it is for the watchers without the mark, with
    /// `complete` for the others.
    private func relay(_ message: AppliedMessage) {
        guard inputWatchers > 0 else { return }
        var message = message
        if completeWatchers > 0 {
            message.complete = markComplete(through: max(message.time, now))
            channel.hold(appliedForms(message, speaking: nil, complete: true), to: .completeWatchers)
        }
        if inputWatchers > completeWatchers {
            channel.hold(appliedForms(message, speaking: nil, complete: false), to: .inputWatchers)
        }
        appliedSinceFrame.append(message)
    }

    /// Whether `frame` shows the room at rest, where a replica can start (docs/protocol.md).
    func showsRest(_ frame: EffectFrame) -> Bool {
        !frame.isAnimating && frame.phase == .idle && frame.liftedRow == nil && frame.placeholder == nil && claim == nil
    }

    /// Frame `frame` (just numbered) shows the room at rest: the watchers learn its exact offset.
    func relayRest(of frame: EffectFrame) {
        guard inputWatchers > 0, showsRest(frame) else { return }
        relay(AppliedMessage(after: frame.sequence, time: frame.time, viewer: nil, id: 0, cause: .state,
                             change: .rest(offset: frame.contentOffset)))
    }

    /// After a watcher's snapshot (or resume): the state a snapshot does not carry (reduced
    /// motion, when on; the exact offset when at rest), then what the room applied since the
    /// frame the snapshot shows.
    func sendAppliedState(to id: String, version: WireVersion, complete: Bool) {
        var messages: [AppliedMessage] = []
        let restKnown = appliedSinceFrame.contains { if case .rest = $0.change { true } else { false } }
        if !restKnown, showsRest(lastFrame) {
            messages.append(AppliedMessage(after: lastFrame.sequence, time: lastFrame.time, viewer: nil, id: 0,
                                           cause: .state, change: .rest(offset: lastFrame.contentOffset)))
        }
        if scene.isReducedMotion {
            messages.append(AppliedMessage(after: sequence, time: max(now, lastFrame.time), viewer: nil, id: 0,
                                           cause: .state, change: .input(.reducedMotion(true))))
        }
        messages += appliedSinceFrame
        for message in messages {
            channel.send(appliedForms(message, speaking: version, complete: complete), to: .viewer(id))
        }
    }

    /// The message in each version a watcher speaks (or only in `version`), with `complete` for
    /// the watchers that asked for the mark, without it for the others.
    private func appliedForms(_ message: AppliedMessage, speaking version: WireVersion?, complete: Bool) -> RoomMessage {
        var message = message
        if !complete { message.complete = nil }
        let v1 = version.map { $0 == .v1 } ?? viewers.contains { $0.watchesInputs && $0.wantsComplete == complete && $0.version == .v1 }
        let v2 = version.map { $0 == .v2 } ?? viewers.contains { $0.watchesInputs && $0.wantsComplete == complete && $0.version == .v2 }
        return RoomMessage(v1: v1 ? OutgoingMessage(utf8: ServerMessageEncoder.applied(message)) : nil,
                           v2: v2 ? OutgoingMessage(binary: ServerMessageEncoderV2.applied(message)) : nil)
    }
}
