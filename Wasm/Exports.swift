// The JavaScript ↔ WebAssembly boundary of the engine (docs/wasm.md): plain exported functions
// taking and returning numbers, with bytes passed through the module's exported memory. Only
// compiled for WebAssembly (scripts/build-wasm.sh); everything it calls is the native code's
// own `EngineReplica`, so the page runs the server's engine and encoder, not a copy.
//
// Memory: `scrollcast_input(n)` returns a buffer of at least n bytes for the caller to fill
// before a call that takes bytes (a scene name, a viewer name, a row order);
// calls that return bytes leave them at `scrollcast_output()`, valid until the next call.
import ScrollEngine
import ScrollReplica
import ScrollWire

nonisolated(unsafe) var replica: EngineReplica?
nonisolated(unsafe) var inputBuffer = Buffer()
nonisolated(unsafe) var outputBuffer = Buffer()
nonisolated(unsafe) var lastContentOffset = 0.0
nonisolated(unsafe) var lastAnimating = false
nonisolated(unsafe) var lastTextsLength: Int32 = 0

/// Runs `body` on the replica in place (no copy of the whole scene), or returns -11 without one.
func withReplica(_ body: (inout EngineReplica) -> Int32) -> Int32 {
    guard replica != nil else { return ReplicaResult.noScene }
    return body(&replica!)
}

/// A growable block of linear memory whose address JavaScript reads.
struct Buffer {
    var base = UnsafeMutablePointer<UInt8>.allocate(capacity: 4096)
    var capacity = 4096

    mutating func reserve(_ count: Int) {
        guard count > capacity else { return }
        base.deallocate()
        capacity = max(count, capacity * 2)
        base = UnsafeMutablePointer<UInt8>.allocate(capacity: capacity)
    }

    var address: Int32 { Int32(truncatingIfNeeded: Int(bitPattern: base)) }

    func bytes(_ count: Int) -> [UInt8] {
        Array(UnsafeBufferPointer(start: base, count: max(0, min(count, capacity))))
    }

    /// The first `count` bytes as text, nil when they are not UTF-8. (Validating, not repairing
    /// as `String(decoding:)` would: repair brings ~2 KB of string code into the module.)
    func text(_ count: Int) -> String? {
        String(validating: bytes(count), as: UTF8.self)
    }

    mutating func put(_ parts: [UInt8]...) {
        reserve(parts.reduce(0) { $0 + $1.count })
        var at = 0
        for part in parts {
            for byte in part { base[at] = byte; at += 1 }
        }
    }

    mutating func putInt32s(_ values: [Int32]) {
        reserve(values.count * 4)
        for (i, v) in values.enumerated() {
            let u = UInt32(bitPattern: v)
            for k in 0..<4 { base[i * 4 + k] = UInt8(truncatingIfNeeded: u >> (8 * UInt32(k))) }
        }
    }

    func int32(at index: Int) -> Int32 {
        var u: UInt32 = 0
        for k in 0..<4 { u |= UInt32(base[index * 4 + k]) << (8 * UInt32(k)) }
        return Int32(bitPattern: u)
    }
}

/// A buffer of at least `size` bytes for the next call's bytes; returns its address.
@_expose(wasm, "scrollcast_input") @_cdecl("scrollcast_input")
public func scrollcastInput(_ size: Int32) -> Int32 {
    inputBuffer.reserve(Int(max(size, 0)))
    return inputBuffer.address
}

/// Where the last call left its bytes.
@_expose(wasm, "scrollcast_output") @_cdecl("scrollcast_output")
public func scrollcastOutput() -> Int32 { outputBuffer.address }

/// Creates the scene named by the `nameLength` UTF-8 bytes in the input buffer (`demo`,
/// `seed-table`), at rest at the top, with an empty texts table. 0, or -11 for an unknown name.
@_expose(wasm, "scrollcast_create") @_cdecl("scrollcast_create")
public func scrollcastCreate(_ nameLength: Int32) -> Int32 {
    guard let name = inputBuffer.text(Int(nameLength)), let created = EngineReplica(sceneNamed: name) else {
        return ReplicaResult.noScene
    }
    replica = created
    return ReplicaResult.applied
}

/// Restores a state at rest: the row order as `words` little-endian Int32s in the input buffer
/// (section count, then each section's row count followed by its row ids), the viewport, and
/// the resting content offset. 0, or -12 when the order or size does not fit the scene.
@_expose(wasm, "scrollcast_restore") @_cdecl("scrollcast_restore")
public func scrollcastRestore(_ words: Int32, _ width: Double, _ height: Double, _ offset: Double) -> Int32 {
    guard let order = orderInInput(words) else { return ReplicaResult.badArgument }
    return withReplica { replica in
        replica.restore(order: order, viewport: Size(width: width, height: height), restingAt: offset)
            ? ReplicaResult.applied : ReplicaResult.badArgument
    }
}

/// A row order as `words` little-endian Int32s in the input buffer (section count, then each
/// section's row count followed by its row ids), or nil when the words do not add up.
func orderInInput(_ words: Int32) -> [[Int]]? {
    let count = Int(max(words, 0))
    guard count >= 1, count * 4 <= inputBuffer.capacity else { return nil }
    var order: [[Int]] = []
    var at = 1
    for _ in 0..<Int(inputBuffer.int32(at: 0)) {
        guard at < count else { return nil }
        let rows = Int(inputBuffer.int32(at: at))
        guard rows >= 0, at + rows < count else { return nil }
        order.append((0..<rows).map { Int(inputBuffer.int32(at: at + 1 + $0)) })
        at += rows + 1
    }
    return at == count ? order : nil
}

/// The current row order into the output buffer, in `scrollcast_restore`'s layout; returns the
/// number of Int32 words (0 without a scene).
@_expose(wasm, "scrollcast_order") @_cdecl("scrollcast_order")
public func scrollcastOrder() -> Int32 {
    let words = withReplica { replica in
        var words: [Int32] = [Int32(replica.scene.sections.count)]
        for section in replica.scene.sections {
            words.append(Int32(section.rows.count))
            for row in section.rows { words.append(Int32(truncatingIfNeeded: row.id)) }
        }
        outputBuffer.putInt32s(words)
        return Int32(words.count)
    }
    return max(words, 0)
}

/// Applies one input at room time `time` with the sender's `id`, for the viewer named by the
/// `viewerLength` UTF-8 bytes in the input buffer (`kind` and `a`…`d` as in docs/wasm.md).
/// Returns 0 applied, 1 applied with a row moved (its id, from-section, from-row, to-section
/// and to-row as five Int32s in the output buffer), or a negative refusal code.
@_expose(wasm, "scrollcast_apply") @_cdecl("scrollcast_apply")
public func scrollcastApply(_ kind: Int32, _ id: Double, _ time: Double, _ a: Double, _ b: Double,
                            _ c: Double, _ d: Double, _ viewerLength: Int32) -> Int32 {
    applyInput(kind, id, time, a, b, c, d, viewerLength, namesFrames: true)
}

/// `scrollcast_apply` for a change the room made itself (an `applied` message whose cause is not
/// `input`: a cancel on leave, unavailable or take-back): later frames keep naming the input before.
@_expose(wasm, "scrollcast_apply_unnamed") @_cdecl("scrollcast_apply_unnamed")
public func scrollcastApplyUnnamed(_ kind: Int32, _ id: Double, _ time: Double, _ a: Double, _ b: Double,
                                   _ c: Double, _ d: Double, _ viewerLength: Int32) -> Int32 {
    applyInput(kind, id, time, a, b, c, d, viewerLength, namesFrames: false)
}

func applyInput(_ kind: Int32, _ id: Double, _ time: Double, _ a: Double, _ b: Double,
                _ c: Double, _ d: Double, _ viewerLength: Int32, namesFrames: Bool) -> Int32 {
    guard id >= 0, id < 9_007_199_254_740_992, id == id.rounded(.towardZero) else { return ReplicaResult.badArgument }
    guard let input = InputCode(kind: Int(kind), a: a, b: b, c: c, d: d).kindValue else { return ReplicaResult.unknownInput }
    guard let viewer = inputBuffer.text(Int(viewerLength)) else { return ReplicaResult.badArgument }
    return withReplica { replica in
        let outcome = replica.apply(InputEvent(id: UInt64(id), time: time, kind: input), viewer: viewer,
                                    namesFrames: namesFrames)
        if case .rowMoved(let rowID, let from, let to) = outcome {
            outputBuffer.putInt32s([Int32(truncatingIfNeeded: rowID), Int32(from.section), Int32(from.row),
                                    Int32(to.section), Int32(to.row)])
        }
        return ReplicaResult.code(outcome)
    }
}

/// The frame at room time `t`, stamped `sequence` and `sentAt`, v2-encoded into the output
/// buffer; returns its length. A `texts` message the room would send first follows the frame's
/// bytes in the buffer (`scrollcast_texts_length`). -11 without a scene.
@_expose(wasm, "scrollcast_frame") @_cdecl("scrollcast_frame")
public func scrollcastFrame(_ t: Double, _ sequence: Double, _ sentAt: Double) -> Int32 {
    let seq = sequence >= 0 && sequence < 9_007_199_254_740_992 ? UInt64(sequence) : 0
    return withReplica { replica in
        let result = replica.frame(at: t, sequence: seq, sentAt: sentAt)
        lastContentOffset = result.frame.contentOffset
        lastAnimating = result.frame.isAnimating
        lastTextsLength = Int32(result.texts?.count ?? 0)
        outputBuffer.put(result.bytes, result.texts ?? [])
        return Int32(result.bytes.count)
    }
}


/// The rows put back at rest in the order of `words` Int32s in the input buffer (`restore`'s
/// layout) at room time `time`: an `applied` `rowOrder`. 0, or -12 for an order that does not fit.
@_expose(wasm, "scrollcast_reorder") @_cdecl("scrollcast_reorder")
public func scrollcastReorder(_ words: Int32, _ time: Double) -> Int32 {
    guard let order = orderInInput(words) else { return ReplicaResult.badArgument }
    return withReplica { $0.reorderAtRest(order, at: time) ? ReplicaResult.applied : ReplicaResult.badArgument }
}

/// Reduced motion on (1) or off (0) without an input: the room's state a snapshot does not carry.
@_expose(wasm, "scrollcast_reduced_motion") @_cdecl("scrollcast_reduced_motion")
public func scrollcastReducedMotion(_ on: Int32) -> Int32 {
    withReplica { replica in
        replica.restoreReducedMotion(on != 0)
        return ReplicaResult.applied
    }
}

/// Later frames name input `id` of the viewer named by the `viewerLength` UTF-8 bytes in the input
/// buffer (a negative `id`: no input), as the frame a replica starts from does.
@_expose(wasm, "scrollcast_name_input") @_cdecl("scrollcast_name_input")
public func scrollcastNameInput(_ id: Double, _ viewerLength: Int32) -> Int32 {
    guard let viewer = inputBuffer.text(Int(max(viewerLength, 0))) else { return ReplicaResult.badArgument }
    return withReplica { replica in
        replica.nameInput(id >= 0 && id < 9_007_199_254_740_992 ? AppliedInput(viewer: viewer, id: UInt64(id)) : nil)
        return ReplicaResult.applied
    }
}

nonisolated(unsafe) var savedReplica: EngineReplica?

/// Keeps a copy of the replica (a value: copying shares storage until one of them changes).
@_expose(wasm, "scrollcast_save") @_cdecl("scrollcast_save")
public func scrollcastSave() -> Int32 {
    withReplica { replica in
        savedReplica = replica
        return ReplicaResult.applied
    }
}

/// Puts the copy `scrollcast_save` kept back in place (it stays saved), keeping the server's
/// texts table as it is now; -11 without one.
@_expose(wasm, "scrollcast_load") @_cdecl("scrollcast_load")
public func scrollcastLoad() -> Int32 {
    guard var saved = savedReplica else { return ReplicaResult.noScene }
    // The server's texts are not part of a state: they only grow, and the newest table stays.
    if let current = replica { saved.serverTexts = current.serverTexts }
    replica = saved
    return ReplicaResult.applied
}

/// Adds the texts in the input buffer's `length` bytes (a `texts` message without its type byte,
/// or a snapshot's texts part) to the server's table; with `replace` 1 the table starts afresh
/// (a snapshot). 0, or -12 for bytes that are not texts.
@_expose(wasm, "scrollcast_server_texts") @_cdecl("scrollcast_server_texts")
public func scrollcastServerTexts(_ length: Int32, _ replace: Int32) -> Int32 {
    guard length >= 0, Int(length) <= inputBuffer.capacity,
          let texts = try? ServerMessageDecoderV2.textsBody(inputBuffer.bytes(Int(length))) else { return ReplicaResult.badArgument }
    return withReplica { replica in
        replica.receiveServerTexts(texts, replacing: replace != 0)
        return ReplicaResult.applied
    }
}

/// The frame at room time `t` encoded against the server's table into the output buffer: the
/// bytes of the server's frame `sequence` when the replica's state is the room's. Returns its
/// length (-11 without a scene).
@_expose(wasm, "scrollcast_server_frame") @_cdecl("scrollcast_server_frame")
public func scrollcastServerFrame(_ t: Double, _ sequence: Double, _ sentAt: Double) -> Int32 {
    let seq = sequence >= 0 && sequence < 9_007_199_254_740_992 ? UInt64(sequence) : 0
    return withReplica { replica in
        let bytes = replica.serverFrameBytes(at: t, sequence: seq, sentAt: sentAt)
        outputBuffer.put(bytes)
        return Int32(bytes.count)
    }
}

/// Length of the `texts` message after the last frame's bytes (0 when it showed nothing new).
@_expose(wasm, "scrollcast_texts_length") @_cdecl("scrollcast_texts_length")
public func scrollcastTextsLength() -> Int32 { lastTextsLength }

/// The last frame's content offset (unrounded), for drawing without decoding the frame.
@_expose(wasm, "scrollcast_content_offset") @_cdecl("scrollcast_content_offset")
public func scrollcastContentOffset() -> Double { lastContentOffset }

/// 1 when the last frame changes with time alone, else 0.
@_expose(wasm, "scrollcast_is_animating") @_cdecl("scrollcast_is_animating")
public func scrollcastIsAnimating() -> Int32 { lastAnimating ? 1 : 0 }

// MARK: Input time mapping (the server's `InputTimeMapper` for this page's viewer)

/// One mapper, as one replica, per module instance: a page maps its own viewer's inputs.
nonisolated(unsafe) var timeMapper = InputTimeMapper()

/// Room time the server gives an input stamped `clientTime` (its `t`) and `at` (NaN: not
/// stamped) that reaches the room at `now`, its earliest time for a change being `floor`;
/// `startsGesture` 1 for `pointerDown` and `longPressBegan`. After `now`: the room holds it until
/// then. NaN when `t` went backwards (the server refuses it: `outOfOrder`).
@_expose(wasm, "scrollcast_mapper_map") @_cdecl("scrollcast_mapper_map")
public func scrollcastMapperMap(_ clientTime: Double, _ at: Double, _ now: Double, _ floor: Double,
                                _ startsGesture: Int32) -> Double {
    timeMapper.mapped(clientTime: clientTime, at: at.isNaN ? nil : at, now: now, floor: floor,
                      startsGesture: startsGesture != 0) ?? .nan
}

/// The server applied the input stamped `clientTime` at room time `room` (its `applied`): later
/// predictions keep their client intervals from there.
@_expose(wasm, "scrollcast_mapper_confirm") @_cdecl("scrollcast_mapper_confirm")
public func scrollcastMapperConfirm(_ clientTime: Double, _ room: Double) {
    timeMapper.confirm(clientTime: clientTime, room: room)
}

/// Forgets the anchor and the last client time (a new connection).
@_expose(wasm, "scrollcast_mapper_reset") @_cdecl("scrollcast_mapper_reset")
public func scrollcastMapperReset() { timeMapper.reset() }

/// The standard library seeds its hashing from `arc4random_buf`; wasi-libc's would bring a
/// ChaCha20 generator, `printf` (through its assertion) and a WASI import into the module. No
/// output of the engine depends on hash order (the cross-check would show it), so a fixed seed
/// serves: this definition is linked instead of libc's.
@_cdecl("arc4random_buf")
public func arc4randomBuffer(_ buffer: UnsafeMutableRawPointer?, _ count: Int) {
    guard let buffer else { return }
    for i in 0..<count { buffer.storeBytes(of: UInt8(truncatingIfNeeded: i &* 151 &+ 7), toByteOffset: i, as: UInt8.self) }
}
