import ScrollEngine

/// The number `apply` returns across the WebAssembly boundary (docs/wasm.md): 0 applied, 1
/// applied with a row moved, negative when refused (the scene is then unchanged).
public enum ReplicaResult {
    public static let applied: Int32 = 0
    public static let rowMoved: Int32 = 1
    public static let timeWentBackwards: Int32 = -1
    public static let notFinite: Int32 = -2
    public static let rowOutOfRange: Int32 = -3
    public static let invalidSize: Int32 = -4
    public static let unexpected: Int32 = -5
    /// The kind code or one of its choices (wheel mode, key, position) is not one the engine knows.
    public static let unknownInput: Int32 = -10
    /// No scene yet (create one first), or a bad argument to create/restore.
    public static let noScene: Int32 = -11
    public static let badArgument: Int32 = -12

    /// The code of an outcome.
    public static func code(_ outcome: EngineReplica.Outcome) -> Int32 {
        switch outcome {
        case .applied: return applied
        case .rowMoved: return rowMoved
        case .rejected(.timeWentBackwards): return timeWentBackwards
        case .rejected(.notFinite): return notFinite
        case .rejected(.rowOutOfRange): return rowOutOfRange
        case .rejected(.invalidSize): return invalidSize
        case .rejected(.unexpected): return unexpected
        }
    }
}

/// FNV-1a, 32 bits: the cross-check's per-frame fingerprint, cheap to compute in JavaScript too
/// (`Math.imul`). A mismatch is then pinned down by comparing the frame's bytes themselves.
public func fnv1a32(_ bytes: [UInt8]) -> UInt32 {
    var h: UInt32 = 0x811c_9dc5
    for b in bytes { h = (h ^ UInt32(b)) &* 0x0100_0193 }
    return h
}
