/// Why a message was refused: what kind of fault it was, and a human-readable reason naming the
/// field. The kind decides the close code, so every layer that closes over a `WireError` closes
/// with the same code for the same fault.
public struct WireError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The kinds of fault a message can have, each with its own close code.
    public enum Kind: Sendable, Hashable, CaseIterable {
        /// Malformed JSON, unknown type, missing or invalid field, a message out of turn.
        case invalidMessage
        /// Larger than `ScrollWire.maxMessageBytes`.
        case tooBig
        /// Text that is not valid UTF-8.
        case invalidUTF8
        /// A binary message where the protocol version expects text.
        case binaryNotAccepted

        /// The close code that goes with this kind of fault.
        public var closeCode: CloseCode {
            switch self {
            case .invalidMessage: return .policyViolation
            case .tooBig: return .messageTooBig
            case .invalidUTF8: return .invalidPayload
            case .binaryNotAccepted: return .unsupportedData
            }
        }
    }

    /// What was wrong, e.g. "field 'x' must be a finite number". Safe to send to the client
    /// in an `error` message.
    public var message: String
    /// What kind of fault it was.
    public var kind: Kind

    /// Creates an error; most faults are invalid messages (close 1008).
    ///
    /// The message is built here, at once, natively. The page's WebAssembly engine
    /// (docs/wasm.md) only ever reports a fault as a number across its boundary, so under
    /// Embedded Swift the message is left empty and never built: the interpolated field names
    /// and values of every throw site then leave the module, with the string-building code only
    /// they reach (docs/wasm.md, "Size").
    public init(_ message: @autoclosure () -> String, kind: Kind = .invalidMessage) {
        #if hasFeature(Embedded)
        self.message = ""
        #else
        self.message = message()
        #endif
        self.kind = kind
    }

    /// The WebSocket close code that goes with it (1008 invalid, 1009 too big, 1007 bad UTF-8,
    /// 1003 binary).
    public var closeCode: CloseCode { kind.closeCode }

    /// A field whose value is not one of `options`: "field 'scene' must be one of demo,
    /// seed-table; got 'x'". Servers that check a field against their own list (the scene
    /// catalogue) use it so the message reads as the decoder's own.
    public static func notOneOf(field: String, options: [String], got value: String) -> WireError {
        WireError("field '\(field)' must be one of \(options.joined(separator: ", ")); got '\(JSONParser.printable(value))'")
    }

    /// The message followed by the close code, for logs.
    public var description: String { "\(message) (close \(closeCode))" }
}
