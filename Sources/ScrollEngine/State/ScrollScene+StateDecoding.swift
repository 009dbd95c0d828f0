extension ScrollScene {
    /// Most motion segments a plan holds (a fling into a bounce has three); more is not a state.
    static let maximumStateSegments = 16
    /// Most velocity samples a state may carry (they span 100 ms of input).
    static let maximumStateSamples = 4096

    /// The scene `stateBytes(base:)` described, on `base` (the same catalogue configuration the
    /// writer named). Throws `StateDecodingError`, building nothing, for bytes of another format
    /// or engine version, truncated or trailing bytes, an unknown tag, a row order that is not a
    /// rearrangement of `base`'s rows, a row or index path the table does not have, a viewport
    /// the engine would refuse, or a non-finite number where the engine keeps a finite one.
    public init(restoring bytes: [UInt8], base: SceneConfiguration) throws(StateDecodingError) {
        var r = StateReader(bytes)
        for b in StateWriter.magic {
            guard r.remaining > 0, try r.byte("magic") == b else { throw .notState }
        }
        let format = try r.byte("format")
        guard format == StateWriter.formatVersion else { throw .formatVersion(format) }
        let engine = try r.u32("engine")
        guard engine == EngineVersion.current else { throw .engineVersion(engine) }
        var configuration = base
        configuration.viewport = Size(width: try r.finite("viewport.width"), height: try r.finite("viewport.height"))
        let side = 0.0...Self.maximumViewportSide
        guard configuration.viewport.width > 0, configuration.viewport.height > 0,
              side.contains(configuration.viewport.width), side.contains(configuration.viewport.height)
        else { throw .invalid(field: "viewport") }
        let reducedMotion = try r.bool("reducedMotion")
        let lastTime = try r.double("lastTime")
        guard lastTime < .infinity else { throw .invalid(field: "lastTime") }
        let lastInputID: UInt64? = try r.bool("lastInputID?") ? try r.u64("lastInputID") : nil
        if try r.bool("rowOrder?") {
            guard let reordered = configuration.reorderingRows(try Self.readRowOrder(&r)) else {
                throw .invalid(field: "rowOrder")
            }
            configuration = reordered
        }
        self.init(configuration: configuration)
        self.reducedMotion = reducedMotion
        self.lastTime = lastTime
        self.lastInputID = lastInputID
        let segmentCount = try r.count("motion.count", limit: Self.maximumStateSegments)
        guard segmentCount > 0 else { throw .invalid(field: "motion.count") }
        var segments: [MotionSegment] = []
        for _ in 0..<segmentCount { segments.append(try Self.readSegment(&r)) }
        motion = MotionPlan(segments)
        gesture = try readGesture(&r)
        if try r.bool("settle?") {
            let row = try readRow(&r, "settle")
            settle = RowSettle(row: row.row, indexPath: row.indexPath, fromY: try r.finite("settle.fromY"),
                               toContentY: try r.finite("settle.toContentY"), fromLift: try r.finite("settle.fromLift"),
                               start: try r.finite("settle.start"), duration: try r.finite("settle.duration"))
        }
        if try r.bool("wheelStream?") {
            wheelStream = WheelStream(raw: try r.finite("wheelStream.raw"), lastTime: try r.finite("wheelStream.lastTime"))
        }
        if try r.bool("scrollTarget?") { scrollTarget = try r.finite("scrollTarget") }
        indicatorFade.restore(anchorTime: try r.double("indicatorFade.anchorTime"),
                              anchorAlpha: try r.finite("indicatorFade.anchorAlpha"),
                              visibleUntil: try r.double("indicatorFade.visibleUntil"))
        panelFade.restore(anchorTime: try r.double("panelFade.anchorTime"),
                          anchorAlpha: try r.finite("panelFade.anchorAlpha"),
                          visibleUntil: try r.double("panelFade.visibleUntil"))
        guard r.remaining == 0 else { throw .trailingBytes(r.remaining) }
    }

    private static func readRowOrder(_ r: inout StateReader) throws(StateDecodingError) -> [[Int]] {
        let sections = try r.count("rowOrder.sections", limit: r.remaining)
        var order: [[Int]] = []
        var previous = 0
        for _ in 0..<sections {
            let rows = try r.count("rowOrder.rows", limit: r.remaining)
            var ids: [Int] = []
            ids.reserveCapacity(rows)
            for _ in 0..<rows {
                previous = previous &+ (try r.svarint("rowOrder.id"))
                ids.append(previous)
            }
            order.append(ids)
        }
        return order
    }

    private static func readSegment(_ r: inout StateReader) throws(StateDecodingError) -> MotionSegment {
        let start = try r.finite("motion.start")
        let phaseIndex = Int(try r.byte("motion.phase"))
        guard phaseIndex < phases.count else { throw .invalid(field: "motion.phase") }
        let curve: MotionCurve
        switch try r.byte("motion.curve") {
        case 0: curve = .hold(try r.finite("hold.offset"))
        case 1:
            let decay = DecayMotion(start: try r.finite("decay.start"), velocity: try r.finite("decay.velocity"),
                                    rate: try r.finite("decay.rate"))
            guard decay.rate > 0, decay.rate < 1 else { throw .invalid(field: "decay.rate") }
            curve = .decay(decay)
        case 2:
            curve = .spring(SpringTrajectory(from: try r.finite("spring.from"), velocity: try r.finite("spring.velocity"),
                                             target: try r.finite("spring.target")))
        case 3:
            curve = .ease(EaseMotion(from: try r.finite("ease.from"), to: try r.finite("ease.to"),
                                     duration: try r.finite("ease.duration")))
        case 4: curve = .linear(from: try r.finite("linear.from"), velocity: try r.finite("linear.velocity"))
        default: throw .invalid(field: "motion.curve")
        }
        return MotionSegment(start: start, curve: curve, phase: phases[phaseIndex])
    }

    private func readGesture(_ r: inout StateReader) throws(StateDecodingError) -> Gesture {
        switch try r.byte("gesture") {
        case 0: return .none
        case 1:
            return .pressed(PendingPress(
                downTime: try r.finite("pressed.downTime"), downPoint: try Self.readPoint(&r, "pressed.downPoint"),
                lastPoint: try Self.readPoint(&r, "pressed.lastPoint"), heldOffset: try r.finite("pressed.heldOffset"),
                canLift: try r.bool("pressed.canLift"), velocity: try Self.readVelocity(&r)))
        case 2:
            return .dragging(Drag(anchorY: try r.finite("drag.anchorY"), anchorRaw: try r.finite("drag.anchorRaw"),
                                  raw: try r.finite("drag.raw"), velocity: try Self.readVelocity(&r)))
        case 3:
            let row = try readRow(&r, "lifted")
            let grabOffset = try r.finite("lifted.grabOffset"), fingerY = try r.finite("lifted.fingerY")
            let liftTime = try r.finite("lifted.liftTime")
            let source: GestureSource
            switch try r.byte("lifted.source") {
            case 0: source = .pointer
            case 1: source = .longPress
            default: throw .invalid(field: "lifted.source")
            }
            let destination = try Self.readIndexPath(&r, "lifted.destination")
            guard destination == row.indexPath || layout.canMoveRow(from: row.indexPath, to: destination) else {
                throw .invalid(field: "lifted.destination")
            }
            // The placeholder's layout is derived, not carried: frames reuse it as the writer's did.
            let cached = destination == row.indexPath ? nil : layout.movingRow(from: row.indexPath, to: destination)
            return .lifted(LiftedRow(row: row.row, from: row.indexPath, grabOffset: grabOffset, fingerY: fingerY,
                                     liftTime: liftTime, source: source, cachedDestination: destination,
                                     cachedLayout: cached))
        case 4: return .longPressOverNothing
        default: throw .invalid(field: "gesture")
        }
    }

    /// A row named by id and index path; the table must hold that row there. (Refusals name the
    /// part, `name`, without a suffix: joining strings costs the WebAssembly module kilobytes.)
    private func readRow(_ r: inout StateReader, _ name: StaticString) throws(StateDecodingError) -> (row: TableRow, indexPath: IndexPath) {
        let id = try r.svarint(name)
        let indexPath = try Self.readIndexPath(&r, name)
        guard layout.contains(indexPath), layout.row(at: indexPath).id == id else { throw .invalid(field: name) }
        return (layout.row(at: indexPath), indexPath)
    }

    private static func readIndexPath(_ r: inout StateReader, _ name: StaticString) throws(StateDecodingError) -> IndexPath {
        IndexPath(section: try r.count(name, limit: Int(Int32.max)), row: try r.count(name, limit: Int(Int32.max)))
    }

    private static func readPoint(_ r: inout StateReader, _ name: StaticString) throws(StateDecodingError) -> Point {
        Point(x: try r.finite(name), y: try r.finite(name))
    }

    private static func readVelocity(_ r: inout StateReader) throws(StateDecodingError) -> VelocityEstimator {
        let count = try r.count("velocity.count", limit: min(maximumStateSamples, r.remaining / 16))
        var samples: [(time: Double, y: Double)] = []
        for _ in 0..<count { samples.append((try r.finite("velocity.time"), try r.finite("velocity.y"))) }
        return VelocityEstimator(samples: samples)
    }
}
