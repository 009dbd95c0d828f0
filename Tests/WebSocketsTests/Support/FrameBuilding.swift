@testable import WebSockets

/// Builds server-to-client frames byte by byte, including ones a correct server never sends.
func serverFrame(_ opcode: UInt8, _ payload: [UInt8], fin: Bool = true, rsv: UInt8 = 0, mask: [UInt8]? = nil,
                 forceLength64: Bool = false) -> [UInt8] {
    var bytes: [UInt8] = [(fin ? 0x80 : 0) | (rsv << 4) | opcode]
    let maskBit: UInt8 = mask == nil ? 0 : 0x80
    let count = payload.count
    if count < 126 && !forceLength64 {
        bytes.append(maskBit | UInt8(count))
    } else if count <= 0xFFFF && !forceLength64 {
        bytes += [maskBit | 126, UInt8(count >> 8), UInt8(count & 0xFF)]
    } else {
        bytes.append(maskBit | 127)
        for shift in stride(from: 56, through: 0, by: -8) { bytes.append(UInt8((UInt64(count) >> UInt64(shift)) & 0xFF)) }
    }
    if let mask {
        bytes += mask
        bytes += payload.enumerated().map { $0.element ^ mask[$0.offset & 3] }
    } else {
        bytes += payload
    }
    return bytes
}

/// What the parser reported, copied out so tests can compare.
enum ParsedEvent: Equatable {
    case text(String)
    case binary([UInt8])
    case ping([UInt8])
    case close(CloseCode?, String)
}

/// Feeds `chunks` to a fresh parser; returns the events and the last outcome.
func parse(_ chunks: [[UInt8]], maxMessageBytes: Int = 1 << 20) -> ([ParsedEvent], ClientFrameParser.Outcome) {
    var parser = ClientFrameParser(maxMessageBytes: maxMessageBytes)
    var events: [ParsedEvent] = []
    var outcome = ClientFrameParser.Outcome.needMore
    for chunk in chunks {
        outcome = chunk.withUnsafeBytes { bytes in
            parser.consume(bytes) { event in
                switch event {
                case .text(let b): events.append(.text(String(decoding: b, as: UTF8.self)))
                case .binary(let b): events.append(.binary(Array(b)))
                case .ping(let b): events.append(.ping(Array(b)))
                case .close(let code, let reason): events.append(.close(code, reason))
                }
            }
        }
    }
    return (events, outcome)
}
