/// Reads the pieces `BinaryWriter` writes, checking every one: a varint must end within 8 bytes
/// and the message, hold at most 2^53 − 1, strings must be valid UTF-8, counts must fit in what
/// is left of the message. Errors name the field, as the JSON decoders' do. Never traps.
struct BinaryReader {
    let bytes: [UInt8]
    private(set) var index = 0
    /// Called with each field's name, byte range and value (as text) as it is read; for
    /// annotated dumps of messages (the doc's examples) and for measuring which fields change
    /// between frames. Native only: under Embedded Swift (the page's WebAssembly engine, which
    /// dumps nothing) it is never called, so no field name or value is ever turned into text there.
    var trace: ((String, Range<Int>, String) -> Void)?

    init(_ bytes: [UInt8]) {
        self.bytes = bytes
    }

    var remaining: Int { bytes.count - index }
    var isAtEnd: Bool { index == bytes.count }

    /// Longest varint: 8 bytes carry 56 bits, more than the 53 any value may have.
    static let maxVarintBytes = 8

    mutating func byte(_ name: @autoclosure () -> String) throws(WireError) -> UInt8 {
        guard index < bytes.count else { throw WireError("\(name()): message ends early, at byte \(index)") }
        let start = index
        index += 1
        Self.report(trace, name, start..<index, String(bytes[start]))
        return bytes[start]
    }

    mutating func uvarint(_ name: @autoclosure () -> String) throws(WireError) -> UInt64 {
        let start = index
        var value: UInt64 = 0
        var shift: UInt64 = 0
        while true {
            guard index < bytes.count else { throw WireError("\(name()): message ends early, at byte \(index)") }
            let b = bytes[index]
            index += 1
            value |= UInt64(b & 0x7F) << shift
            if b & 0x80 == 0 { break }
            shift += 7
            guard index - start < Self.maxVarintBytes else {
                throw WireError("\(name()): varint at byte \(start) is longer than \(Self.maxVarintBytes) bytes")
            }
        }
        guard value <= ScrollWire.maxSafeInteger else {
            throw WireError("\(name()): \(value) is beyond 2^53 − 1")
        }
        Self.report(trace, name, start..<index, String(value))
        return value
    }

    /// An unsigned varint as an `Int` (at most 2^53 − 1, so it always fits).
    mutating func uint(_ name: @autoclosure () -> String) throws(WireError) -> Int {
        Int(try uvarint(name()))
    }

    /// A count of entries that each take at least `minimumBytes`: refused when the rest of the
    /// message could not hold them, so a hostile count never reserves memory.
    mutating func count(_ name: @autoclosure () -> String, minimumBytes: Int = 1) throws(WireError) -> Int {
        let n = try uint(name())
        guard n <= remaining / max(minimumBytes, 1) else {
            throw WireError("\(name()): \(n) entries cannot fit in the \(remaining) bytes left")
        }
        return n
    }

    mutating func svarint(_ name: @autoclosure () -> String) throws(WireError) -> Int64 {
        let start = index
        let savedTrace = trace
        trace = nil
        defer { trace = savedTrace }
        let z = try uvarint(name())
        let value = Int64(bitPattern: z >> 1) ^ -Int64(bitPattern: z & 1)
        Self.report(savedTrace, name, start..<index, String(value))
        return value
    }

    mutating func sint(_ name: @autoclosure () -> String) throws(WireError) -> Int {
        Int(try svarint(name()))
    }

    mutating func string(_ name: @autoclosure () -> String) throws(WireError) -> String {
        let start = index
        let savedTrace = trace
        trace = nil
        defer { trace = savedTrace }
        let length = try uint(name())
        guard length <= remaining else {
            throw WireError("\(name()): string of \(length) bytes runs past the end of the message")
        }
        let end = index + length
        guard let s = String(validating: bytes[index..<end], as: UTF8.self) else {
            throw WireError("\(name()): string is not valid UTF-8")
        }
        index = end
        Self.report(savedTrace, name, start..<index, "\"\(s)\"")
        return s
    }

    /// 8 bytes, little-endian (a beat's hash).
    mutating func u64(_ name: @autoclosure () -> String) throws(WireError) -> UInt64 {
        let start = index
        let bits = try bits64(name())
        Self.report(trace, name, start..<index, "0x" + HashText.hex(bits))
        return bits
    }

    private mutating func bits64(_ name: @autoclosure () -> String) throws(WireError) -> UInt64 {
        guard remaining >= 8 else { throw WireError("\(name()): message ends early, at byte \(index)") }
        var bits: UInt64 = 0
        for i in 0..<8 { bits |= UInt64(bytes[index + i]) << (8 * UInt64(i)) }
        index += 8
        return bits
    }

    /// `count` bytes as they are (a snapshot's state).
    mutating func raw(_ count: Int, _ name: @autoclosure () -> String) throws(WireError) -> [UInt8] {
        guard count <= remaining else { throw WireError("\(name()): \(count) bytes run past the end of the message") }
        let start = index
        index += count
        Self.report(trace, name, start..<index, "\(count) bytes")
        return Array(bytes[start..<index])
    }

    mutating func float64(_ name: @autoclosure () -> String) throws(WireError) -> Double {
        let start = index
        let x = Double(bitPattern: try bits64(name()))
        guard x.isFinite else { throw WireError("\(name()) must be a finite number") }
        Self.report(trace, name, start..<index, "\(x)")
        return x
    }

    /// Units + a delta read as a signed varint, checked to stay within ±(2^53 − 1).
    static func sum(_ a: Int64, _ b: Int64, _ name: @autoclosure () -> String) throws(WireError) -> Int64 {
        let (s, overflow) = a.addingReportingOverflow(b)
        guard !overflow, s.magnitude <= ScrollWire.maxSafeInteger else {
            throw WireError("\(name()): value is beyond ±(2^53 − 1)")
        }
        return s
    }

    /// Hands a field read to `trace`, building its name and value only then (see `trace`).
    static func report(_ trace: ((String, Range<Int>, String) -> Void)?, _ name: () -> String,
                               _ range: Range<Int>, _ value: @autoclosure () -> String) {
        #if !hasFeature(Embedded)
        trace?(name(), range, value())
        #endif
    }

    func end(_ what: String) throws(WireError) {
        guard isAtEnd else { throw WireError("\(what): \(remaining) bytes after the end of the message") }
    }
}
