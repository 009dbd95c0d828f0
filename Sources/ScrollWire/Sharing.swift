/// Sharing a room (docs/protocol.md, "Sharing"): a watcher of a locked room asks to drive and
/// a holder of the room's key grants or denies it; a viewer says it explores on its own or
/// follows the room; whoever may call everyone back does, and the explorers are asked to follow.

/// How a viewer watches: following the room's picture, or exploring a table of its own.
public enum ViewMode: String, Sendable, Hashable, CaseIterable {
    /// It draws the room's frames (the default).
    case follow
    /// It drives its own replica; its input does not go to the room.
    case explore
}

/// A client's sharing message (each its own `type`).
public enum SharingRequest: Sendable, Equatable {
    /// `ask`: a watcher of a locked room asks to drive.
    case ask
    /// `grant`: a key holder lets `viewer` (who asked) drive for the rest of its connection.
    case grant(viewer: String)
    /// `deny`: a key holder turns down `viewer`'s request.
    case deny(viewer: String)
    /// `view`: the viewer now follows or explores.
    case view(ViewMode)
    /// `callBack`: every exploring viewer is asked to follow again.
    case callBack

    /// The message's `type`.
    public var type: String {
        switch self {
        case .ask: "ask"
        case .grant: "grant"
        case .deny: "deny"
        case .view: "view"
        case .callBack: "callBack"
        }
    }

    /// The `type`s of sharing messages.
    public static let types: Set<String> = ["ask", "grant", "deny", "view", "callBack"]
}

/// A server's sharing message (each its own `type`).
public enum SharingNotice: Sendable, Equatable {
    /// `asked`: `viewer` asks to drive; the request lapses in `expiresIn` ms. To the room's key
    /// holders and to the asker.
    case asked(viewer: String, expiresIn: Int)
    /// `granted`: `by` let `viewer` drive. `grant` (for a resume) only in the asker's copy.
    case granted(viewer: String, by: String, grant: String?)
    /// `denied`: `by` turned `viewer`'s request down.
    case denied(viewer: String, by: String)
    /// `expired`: `viewer`'s request lapsed unanswered (or the asker left).
    case expired(viewer: String)
    /// `follow`: `by` calls every exploring viewer back to the room's picture.
    case follow(by: String)

    /// The message's `type`.
    public var type: String {
        switch self {
        case .asked: "asked"
        case .granted: "granted"
        case .denied: "denied"
        case .expired: "expired"
        case .follow: "follow"
        }
    }
}

extension ClientMessageDecoder {
    /// A sharing message of type `type` from `r`.
    static func sharing(_ type: String, _ r: FieldReader) throws(WireError) -> SharingRequest {
        switch type {
        case "ask": return .ask
        case "grant": return .grant(viewer: try viewerID("viewer", r))
        case "deny": return .deny(viewer: try viewerID("viewer", r))
        case "view": return .view(try r.choice("mode", ViewMode.allCases))
        default: return .callBack
        }
    }

    private static func viewerID(_ field: String, _ r: FieldReader) throws(WireError) -> String {
        let id = try r.string(field)
        guard !id.isEmpty, id.unicodeScalars.count <= ScrollWire.maxClientLength else {
            throw WireError("field '\(field)' must be a viewer id of 1–\(ScrollWire.maxClientLength) characters")
        }
        return id
    }
}

extension ClientMessageEncoder {
    /// A sharing message.
    public static func sharing(_ request: SharingRequest) -> String {
        var w = JSONWriter(capacity: 48)
        w.beginObject()
        w.key("type"); w.string(request.type)
        switch request {
        case .ask, .callBack: break
        case .grant(let viewer), .deny(let viewer): w.key("viewer"); w.string(viewer)
        case .view(let mode): w.key("mode"); w.string(mode.rawValue)
        }
        w.endObject()
        return String(decoding: w.bytes, as: UTF8.self)
    }
}

extension ServerMessageEncoder {
    /// A sharing message (version 1).
    public static func sharing(_ notice: SharingNotice) -> [UInt8] {
        var w = JSONWriter(capacity: 80)
        w.beginObject()
        switch notice {
        case .asked(let viewer, let expiresIn):
            w.key("type"); w.string("asked")
            w.key("viewer"); w.string(viewer)
            w.key("expiresIn"); w.integer(expiresIn)
        case .granted(let viewer, let by, let grant):
            w.key("type"); w.string("granted")
            w.key("viewer"); w.string(viewer)
            w.key("by"); w.string(by)
            if let grant { w.key("grant"); w.string(grant) }
        case .denied(let viewer, let by):
            w.key("type"); w.string("denied")
            w.key("viewer"); w.string(viewer)
            w.key("by"); w.string(by)
        case .expired(let viewer):
            w.key("type"); w.string("expired")
            w.key("viewer"); w.string(viewer)
        case .follow(let by):
            w.key("type"); w.string("follow")
            w.key("by"); w.string(by)
        }
        w.endObject()
        return w.bytes
    }

    /// Writes presence's sharing fields: `exploring` when anyone explores, `granted` when anyone
    /// holds a grant (left out otherwise, so rooms that share nothing send what they always did).
    static func writeSharing(exploring: Int, granted: [String], into w: inout JSONWriter) {
        if exploring > 0 { w.key("exploring"); w.integer(exploring) }
        guard !granted.isEmpty else { return }
        w.key("granted")
        w.beginArray()
        for viewer in granted { w.string(viewer) }
        w.endArray()
    }
}

extension ServerMessageDecoder {
    /// The sharing message of type `type`, or nil for another type.
    static func sharing(_ type: String, _ r: FieldReader) throws(WireError) -> SharingNotice? {
        switch type {
        case "asked": return .asked(viewer: try r.string("viewer"), expiresIn: try r.int("expiresIn"))
        case "granted": return .granted(viewer: try r.string("viewer"), by: try r.string("by"), grant: try r.optionalString("grant"))
        case "denied": return .denied(viewer: try r.string("viewer"), by: try r.string("by"))
        case "expired": return .expired(viewer: try r.string("viewer"))
        case "follow": return .follow(by: try r.string("by"))
        default: return nil
        }
    }

    /// Presence's `granted` list (empty when absent).
    static func granted(_ r: FieldReader) throws(WireError) -> [String] {
        guard r.has("granted") else { return [] }
        guard case .array(let elements) = try r.required("granted") else {
            throw WireError("field '\(r.name("granted"))' must be an array of strings")
        }
        var ids: [String] = []
        for element in elements {
            guard case .string(let id) = element else {
                throw WireError("field '\(r.name("granted"))' must be an array of strings")
            }
            ids.append(id)
        }
        return ids
    }
}

/// Bits of the version-2 `granted` message's flags byte.
enum GrantedFlagsV2 {
    static let grant: UInt8 = 0x01
}

extension ServerMessageEncoderV2 {
    /// A sharing message (version 2, types `0b`–`0f`).
    public static func sharing(_ notice: SharingNotice) -> [UInt8] {
        var w = BinaryWriter(capacity: 32)
        switch notice {
        case .asked(let viewer, let expiresIn):
            w.byte(ServerMessageTypeV2.asked.rawValue)
            w.string(viewer)
            w.uvarint(expiresIn)
        case .granted(let viewer, let by, let grant):
            w.byte(ServerMessageTypeV2.granted.rawValue)
            w.string(viewer)
            w.string(by)
            w.byte(grant != nil ? GrantedFlagsV2.grant : 0)
            if let grant { w.string(grant) }
        case .denied(let viewer, let by):
            w.byte(ServerMessageTypeV2.denied.rawValue)
            w.string(viewer)
            w.string(by)
        case .expired(let viewer):
            w.byte(ServerMessageTypeV2.expired.rawValue)
            w.string(viewer)
        case .follow(let by):
            w.byte(ServerMessageTypeV2.follow.rawValue)
            w.string(by)
        }
        return w.bytes
    }
}

extension ServerMessageDecoderV2 {
    /// The sharing message of `type` (its type byte already read), or nil for another type.
    static func sharing(_ type: ServerMessageTypeV2, _ r: inout BinaryReader) throws(WireError) -> SharingNotice? {
        let notice: SharingNotice
        let name: String
        switch type {
        case .asked:
            name = "asked"
            notice = .asked(viewer: try r.string("viewer"), expiresIn: try r.uint("expiresIn"))
        case .granted:
            name = "granted"
            let viewer = try r.string("viewer")
            let by = try r.string("by")
            let flags = try r.byte("flags")
            guard flags & ~GrantedFlagsV2.grant == 0 else { throw WireError("flags: reserved bits set in \(flags)") }
            notice = .granted(viewer: viewer, by: by, grant: flags & GrantedFlagsV2.grant != 0 ? try r.string("grant") : nil)
        case .denied:
            name = "denied"
            notice = .denied(viewer: try r.string("viewer"), by: try r.string("by"))
        case .expired:
            name = "expired"
            notice = .expired(viewer: try r.string("viewer"))
        case .follow:
            name = "follow"
            notice = .follow(by: try r.string("by"))
        default:
            return nil
        }
        try r.end(name)
        return notice
    }

    /// Presence's sharing fields, as flagged.
    static func presenceSharing(_ r: inout BinaryReader, flags: UInt8) throws(WireError) -> (exploring: Int, granted: [String]) {
        let exploring = flags & MessageFlagsV2.exploring != 0 ? try r.uint("exploring") : 0
        var granted: [String] = []
        if flags & MessageFlagsV2.granted != 0 {
            let count = try r.count("granted")
            for i in 0..<count { granted.append(try r.string("granted[\(i)]")) }
        }
        return (exploring, granted)
    }
}

extension BinaryWriter {
    /// Presence's sharing fields (their flag bits are set by the caller).
    mutating func presenceSharing(exploring: Int, granted: [String]) {
        if exploring > 0 { uvarint(exploring) }
        guard !granted.isEmpty else { return }
        uvarint(granted.count)
        for viewer in granted { string(viewer) }
    }
}
