import ScrollWire

/// A driver's script: which input it sends when. Inputs are planned on the monotonic clock from
/// the start of each gesture, so a gesture keeps the script's pace whatever the timer slack.
extension LoadConnection {
    /// Makes this connection a driver playing `plan.script`. Its run-wide index seeds the script:
    /// same seed, same inputs, whatever the thread count.
    func assignScript(of plan: LoadPlan) {
        if let recording = plan.recording {
            generator = GestureGenerator(replaying: recording.gesture)
        } else {
            generator = GestureGenerator(script: plan.script, seed: plan.seed &+ UInt64(index) &* 0x9E37_79B9,
                                         unrounded: plan.testFault == .unroundedInputs)
        }
    }

    /// Begins the first gesture at `now` (monotonic ms); a connection without a script stays idle.
    func startScript(atMs now: Double) {
        guard var generator else { return }
        gesture = generator.next()
        self.generator = generator
        step = 0
        gestureOriginMs = now
    }

    /// When the next input is due (monotonic ms), or nil when there is no script.
    var nextInputDueMs: Double? {
        guard let gesture else { return nil }
        return gestureOriginMs + gesture.inputs[step].atMs
    }

    /// The next input, recorded as sent at `now` (monotonic ms) and awaited from then on, its
    /// latency `counted` or not; the script moves on to the input after it. Nil when there is no script.
    func takeNextInput(sentAtMs now: Double, counted: Bool) -> InputMessage? {
        guard let gesture, var generator else { return nil }
        let input = gesture.inputs[step]
        // `t` is the planned time, so the gesture's velocities are the script's own whatever
        // the timer slack; it never goes backwards because plans only move forward.
        let message = InputMessage(id: nextInputID, clientTime: gestureOriginMs + input.atMs, kind: input.kind)
        pending.append(.init(id: nextInputID, sentMs: now, counted: counted))
        nextInputID += 1

        step += 1
        if step == gesture.inputs.count {
            gestureOriginMs += gesture.lengthMs
            // A driver starved of timer time starts its next gesture now rather than
            // replaying the backlog in a burst (which would trip the server's rate limit).
            if now - gestureOriginMs > 250 { gestureOriginMs = now }
            self.gesture = generator.next()
            self.generator = generator
            step = 0
        }
        return message
    }
}
