import ScrollEngine

/// Why a room applied a change to its scene (an `applied` message's `cause`).
public enum AppliedCause: String, Sendable, Hashable, CaseIterable {
    /// A viewer's input: frames from then on name it in `input`.
    case input
    /// The room cancelled the gesture of a driver that left. Frames keep naming the input before.
    case leave
    /// The room cancelled a gesture whose drop it could not store (`refused` with `unavailable`).
    case unavailable
    /// The room took back row moves its store failed to keep (a cancel, then `rowOrder`).
    case takeBack
    /// Not a change: how the scene is when the viewer joins, for what a snapshot does not carry
    /// (reduced motion). Sent right after the snapshot; a replica takes it as the state it
    /// restores, never applies it as an input.
    case state
}

/// What an `applied` message applies: one input as the engine saw it, or a new row order at rest.
public enum AppliedChange: Sendable, Equatable {
    /// An input (`kind` and its fields, as in a client's `input`).
    case input(InputKind)
    /// The rows put back in this order (ids per section), the content at rest where it was
    /// (`ScrollScene.reorderedAtRest`).
    case rowOrder([[Int]])
    /// (Cause `state`) the room is at rest with its content exactly at `offset` (frames round it
    /// to 0.01 pt): where a replica starting at frame `after` restores it.
    case rest(offset: Double)
}

/// An `applied` message (docs/protocol.md, "Inputs applied"): a change the room made to its
/// scene, sent in order to viewers whose join asked (`inputs: true`), so that a replica of the
/// engine fed only these reproduces every frame.
public struct AppliedMessage: Sendable, Equatable {
    /// `seq` of the last frame the room sent before applying it: frames after `after` show it.
    public var after: UInt64
    /// Room time the engine applied it at, ms (exact: not rounded).
    public var time: Double
    /// The viewer it came from (or whose gesture it ends); nil for a `rowOrder`.
    public var viewer: String?
    /// The input id the engine was given (0 when that viewer had sent none).
    public var id: UInt64
    /// Why it was applied.
    public var cause: AppliedCause
    /// What was applied.
    public var change: AppliedChange
    /// The room's complete-history mark when it was sent (`complete`, only for viewers whose join
    /// asked): every change at or before this room time has been sent to the viewer by now.
    public var complete: Double?

    /// An applied message.
    public init(after: UInt64, time: Double, viewer: String?, id: UInt64, cause: AppliedCause, change: AppliedChange,
                complete: Double? = nil) {
        self.after = after; self.time = time; self.viewer = viewer; self.id = id; self.cause = cause; self.change = change
        self.complete = complete
    }

    /// Whether frames from then on name this input (`frame.input`): only viewers' own inputs.
    public var namesFrames: Bool { cause == .input }
}

/// Input kinds and their choices as version 2 writes them in `applied` (one byte each).
enum AppliedCodesV2 {
    static let rowOrder: UInt8 = 14
    static let rest: UInt8 = 15
    static let modes: [WheelDeltaMode] = [.pixel, .line, .page]
    static let positions: [ScrollPosition] = [.none, .top, .middle, .bottom]

    static func code(_ kind: InputKind) -> UInt8 {
        switch kind {
        case .pointerDown: 1
        case .pointerMoved: 2
        case .pointerUp: 3
        case .pointerCancelled: 4
        case .wheel: 5
        case .key: 6
        case .scrollToRow: 7
        case .longPressBegan: 8
        case .longPressMoved: 9
        case .longPressEnded: 10
        case .longPressCancelled: 11
        case .resize: 12
        case .reducedMotion: 13
        }
    }

    /// The kind byte of `change`.
    static func code(_ change: AppliedChange) -> UInt8 {
        switch change {
        case .input(let kind): code(kind)
        case .rowOrder: rowOrder
        case .rest: rest
        }
    }

    static func index<T: Equatable>(_ value: T, in options: [T]) -> UInt8 {
        UInt8(options.firstIndex(of: value) ?? 0)
    }
}

extension ServerMessageEncoder {
    /// An `applied` message (version 1). Numbers are written exactly (not rounded), so a replica
    /// applies the very doubles the room applied.
    public static func applied(_ m: AppliedMessage) -> [UInt8] {
        var w = JSONWriter(capacity: 160)
        writeApplied(m, into: &w, type: true)
        return w.bytes
    }

    /// An `applied` object; without `type` as an entry of a `batch`.
    static func writeApplied(_ m: AppliedMessage, into w: inout JSONWriter, type: Bool) {
        w.beginObject()
        if type { w.key("type"); w.string("applied") }
        w.key("after"); w.integer(m.after)
        w.key("t"); w.exactNumber(m.time)
        if let complete = m.complete { w.key("complete"); w.exactNumber(complete) }
        w.key("viewer"); w.optionalString(m.viewer)
        w.key("id"); w.integer(m.id)
        w.key("cause"); w.string(m.cause.rawValue)
        switch m.change {
        case .input(let kind):
            w.key("kind"); w.string(InputKindName(kind).rawValue)
            ClientMessageEncoder.writeFields(of: kind, into: &w, exact: true)
        case .rowOrder(let order):
            w.key("kind"); w.string("rowOrder")
            w.key("order")
            w.beginArray()
            for section in order {
                w.beginArray()
                for id in section { w.integer(id) }
                w.endArray()
            }
            w.endArray()
        case .rest(let offset):
            w.key("kind"); w.string("rest")
            w.key("offset"); w.exactNumber(offset)
        }
        w.endObject()
    }
}

extension ServerMessageDecoder {
    static func applied(_ r: FieldReader) throws(WireError) -> AppliedMessage {
        let causeText = try r.string("cause")
        guard let cause = AppliedCause(rawValue: causeText) else {
            throw WireError("unknown cause '\(JSONParser.printable(causeText))'")
        }
        let kindText = try r.string("kind")
        let change: AppliedChange
        if kindText == "rowOrder" {
            guard case .array(let sections) = try r.required("order") else { throw WireError("field 'order' must be an array") }
            var order: [[Int]] = []
            for section in sections {
                guard case .array(let ids) = section else { throw WireError("field 'order' must hold arrays of row ids") }
                var row: [Int] = []
                for id in ids {
                    guard case .number(let x) = id, x >= 0, x <= Double(ScrollWire.maxSafeInteger), x == x.rounded() else {
                        throw WireError("field 'order' must hold row ids (integers ≥ 0)")
                    }
                    row.append(Int(x))
                }
                order.append(row)
            }
            change = .rowOrder(order)
        } else if kindText == "rest" {
            change = .rest(offset: try r.number("offset"))
        } else if let name = InputKindName(rawValue: kindText) {
            change = .input(try ClientMessageDecoder.inputKind(name, r))
        } else {
            throw WireError("unknown input kind '\(JSONParser.printable(kindText))'")
        }
        return AppliedMessage(after: UInt64(try r.int("after")), time: try r.number("t"),
                              viewer: try r.optionalString("viewer"), id: UInt64(try r.int("id")),
                              cause: cause, change: change, complete: r.has("complete") ? try r.number("complete") : nil)
    }
}

extension ServerMessageEncoderV2 {
    /// An `applied` message (version 2, type `09`); numbers exact, as `f64`.
    public static func applied(_ m: AppliedMessage) -> [UInt8] {
        var w = BinaryWriter(capacity: 48)
        w.byte(ServerMessageTypeV2.applied.rawValue)
        writeApplied(m, into: &w)
        return w.bytes
    }

    /// An `applied` message without its type byte (also an entry of a `batch`).
    static func writeApplied(_ m: AppliedMessage, into w: inout BinaryWriter) {
        w.uvarint(m.after)
        w.float64(m.time)
        w.byte((m.viewer == nil ? 0 : 1) | (m.complete == nil ? 0 : 2))
        if let viewer = m.viewer { w.string(viewer) }
        if let complete = m.complete { w.float64(complete) }
        w.uvarint(m.id)
        w.byte(UInt8(AppliedCause.allCases.firstIndex(of: m.cause) ?? 0))
        w.byte(AppliedCodesV2.code(m.change))
        writeFields(of: m.change, into: &w) { w, x in w.float64(x) }
    }

    /// The fields of `change` after its kind byte, each number written by `number` (an `f64` in
    /// `applied`, a `num` in a `batch`).
    static func writeFields(of change: AppliedChange, into w: inout BinaryWriter,
                            number: (inout BinaryWriter, Double) -> Void) {
        switch change {
        case .rest(let offset):
            number(&w, offset)
        case .rowOrder(let order):
            w.uvarint(order.count)
            var previous = -1
            for section in order {
                w.uvarint(section.count)
                for id in section {
                    w.svarint(id - (previous + 1))
                    previous = id
                }
            }
        case .input(let kind):
            switch kind {
            case .pointerDown(let p), .pointerMoved(let p), .pointerUp(let p),
                 .longPressBegan(let p), .longPressMoved(let p), .longPressEnded(let p):
                number(&w, p.x); number(&w, p.y)
            case .pointerCancelled, .longPressCancelled:
                break
            case .wheel(let dx, let dy, let mode):
                number(&w, dx); number(&w, dy); w.byte(AppliedCodesV2.index(mode, in: AppliedCodesV2.modes))
            case .key(let key):
                w.byte(AppliedCodesV2.index(key, in: ScrollKey.allCases))
            case .scrollToRow(let path, let position, let animated):
                w.uvarint(path.section); w.uvarint(path.row)
                w.byte(AppliedCodesV2.index(position, in: AppliedCodesV2.positions)); w.byte(animated ? 1 : 0)
            case .resize(let size):
                number(&w, size.width); number(&w, size.height)
            case .reducedMotion(let on):
                w.byte(on ? 1 : 0)
            }
        }
    }
}

extension ServerMessageDecoderV2 {
    static func applied(_ r: inout BinaryReader) throws(WireError) -> AppliedMessage {
        let after = try r.uvarint("after")
        let time = try r.float64("t")
        let flags = try r.byte("flags")
        guard flags & ~3 == 0 else { throw WireError("flags: reserved bits set in \(flags)") }
        let viewer = flags & 1 != 0 ? try r.string("viewer") : nil
        let complete = flags & 2 != 0 ? try r.float64("complete") : nil
        let id = try r.uvarint("id")
        let causeCode = Int(try r.byte("cause"))
        guard causeCode < AppliedCause.allCases.count else { throw WireError("unknown cause \(causeCode)") }
        let cause = AppliedCause.allCases[causeCode]
        let change = try Self.change(kind: try r.byte("kind"), &r) { r, name throws(WireError) in try r.float64(name) }
        return AppliedMessage(after: after, time: time, viewer: viewer, id: id, cause: cause, change: change,
                              complete: complete)
    }

    /// The change of kind `kindCode` whose fields follow, each number read by `number`.
    static func change(kind kindCode: UInt8, _ r: inout BinaryReader,
                       number: (inout BinaryReader, String) throws(WireError) -> Double) throws(WireError) -> AppliedChange {
        func choice<T>(_ name: String, _ options: [T]) throws(WireError) -> T {
            let i = Int(try r.byte(name))
            guard i < options.count else { throw WireError("\(name) \(i) is not one of 0…\(options.count - 1)") }
            return options[i]
        }
        func point() throws(WireError) -> Point { Point(x: try number(&r, "x"), y: try number(&r, "y")) }
        let change: AppliedChange
        switch kindCode {
        case 1: change = .input(.pointerDown(try point()))
        case 2: change = .input(.pointerMoved(try point()))
        case 3: change = .input(.pointerUp(try point()))
        case 4: change = .input(.pointerCancelled)
        case 5:
            change = .input(.wheel(dx: try number(&r, "dx"), dy: try number(&r, "dy"), mode: try choice("mode", AppliedCodesV2.modes)))
        case 6: change = .input(.key(try choice("key", ScrollKey.allCases)))
        case 7:
            let path = IndexPath(section: try r.uint("section"), row: try r.uint("row"))
            change = .input(.scrollToRow(path, position: try choice("position", AppliedCodesV2.positions),
                                         animated: try choice("animated", [false, true])))
        case 8: change = .input(.longPressBegan(try point()))
        case 9: change = .input(.longPressMoved(try point()))
        case 10: change = .input(.longPressEnded(try point()))
        case 11: change = .input(.longPressCancelled)
        case 12: change = .input(.resize(Size(width: try number(&r, "width"), height: try number(&r, "height"))))
        case 13: change = .input(.reducedMotion(try choice("on", [false, true])))
        case AppliedCodesV2.rowOrder:
            var order: [[Int]] = []
            var previous: Int64 = -1
            for _ in 0..<(try r.count("order")) {
                var section: [Int] = []
                for _ in 0..<(try r.count("order.rows")) {
                    previous = try BinaryReader.sum(previous + 1, try r.svarint("order.id"), "order.id")
                    section.append(Int(previous))
                }
                order.append(section)
            }
            change = .rowOrder(order)
        case AppliedCodesV2.rest:
            change = .rest(offset: try number(&r, "offset"))
        default:
            throw WireError("unknown kind \(kindCode)")
        }
        return change
    }
}
