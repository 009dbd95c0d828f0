/// A `multipart/form-data` body (RFC 7578) split into its parts: what a browser's `FormData`
/// sends. Bounded: at most `maxParts` parts and `maxHeaderBytes` of headers per part; the body
/// itself is bounded by whoever read it. Only what form data uses is understood: a part's
/// `Content-Disposition: form-data; name=…; filename=…` and its `Content-Type`.
public struct MultipartForm: Sendable {
    /// One field or file of the form.
    public struct Part: Sendable, Equatable {
        /// The form field's name (`name=`).
        public var name: String
        /// The file's name as the client sent it (`filename=`); nil for a plain field.
        public var fileName: String?
        /// The part's declared Content-Type, if any (never trusted for images: they are checked by content).
        public var contentType: String?
        public var bytes: [UInt8]

        public init(name: String, fileName: String?, contentType: String?, bytes: [UInt8]) {
            self.name = name
            self.fileName = fileName
            self.contentType = contentType
            self.bytes = bytes
        }
    }

    /// Why a body is not well-formed form data (answered 400).
    public struct Malformed: Error, Sendable, Equatable {
        public var message: String
        public init(_ message: String) { self.message = message }
    }

    public static let maxParts = 64
    public static let maxHeaderBytes = 4096

    public var parts: [Part]

    /// The boundary of a `multipart/form-data` Content-Type, or nil when the type is another
    /// (answered 415) or names no usable boundary.
    public static func boundary(ofContentType contentType: String) -> String? {
        let pieces = contentType.split(separator: ";", omittingEmptySubsequences: false)
        guard let type = pieces.first, type.trimmed.lowercased() == "multipart/form-data" else { return nil }
        for piece in pieces.dropFirst() {
            guard let (key, value) = parameter(piece), key == "boundary" else { continue }
            // RFC 2046: 1–70 characters, not ending in a space.
            guard (1...70).contains(value.utf8.count), value.last != " ", !value.contains("\r"), !value.contains("\n") else { return nil }
            return value
        }
        return nil
    }

    /// Splits `body` at `boundary`.
    public init(body: [UInt8], boundary: String) throws(Malformed) {
        let delimiter = Array(("--" + boundary).utf8)
        // The first delimiter starts the body or follows a preamble's CRLF.
        var position: Int
        if body.starts(with: delimiter) {
            position = delimiter.count
        } else if let found = Self.find([13, 10] + delimiter, in: body, from: 0) {
            position = found + 2 + delimiter.count
        } else {
            throw Malformed("no part starts with the boundary")
        }
        let next = [13, 10] + delimiter
        var parts: [Part] = []
        while true {
            if body[position...].starts(with: [45, 45]) { break }  // "--": the closing delimiter
            // Transport padding (spaces, tabs) may follow a delimiter before its CRLF.
            while position < body.count, body[position] == 32 || body[position] == 9 { position += 1 }
            guard body[position...].starts(with: [13, 10]) else { throw Malformed("a boundary is not followed by a line break") }
            position += 2
            guard parts.count < Self.maxParts else { throw Malformed("more than \(Self.maxParts) parts") }
            // A part without headers has its blank line at once.
            guard let headerEnd = body[position...].starts(with: [13, 10]) ? position - 2
                    : Self.find([13, 10, 13, 10], in: body, from: position, within: Self.maxHeaderBytes + 4) else {
                throw Malformed("a part's headers do not end within \(Self.maxHeaderBytes) bytes")
            }
            let headers = headerEnd >= position ? Array(body[position..<headerEnd]) : []
            let contentStart = headerEnd + 4
            guard let contentEnd = Self.find(next, in: body, from: contentStart) else {
                throw Malformed("the body ends inside a part (no closing boundary)")
            }
            parts.append(try Self.part(headers: headers, bytes: Array(body[contentStart..<contentEnd])))
            position = contentEnd + next.count
        }
        self.parts = parts
    }

    private static func part(headers: [UInt8], bytes: [UInt8]) throws(Malformed) -> Part {
        var name: String?, fileName: String?, contentType: String?
        for line in String(decoding: headers, as: UTF8.self).split(separator: "\r\n") {
            guard let colon = line.firstIndex(of: ":") else { throw Malformed("a part's header line has no ':'") }
            let field = line[..<colon].trimmed.lowercased()
            let value = line[line.index(after: colon)...]
            if field == "content-type" { contentType = value.trimmed }
            guard field == "content-disposition" else { continue }
            let pieces = value.split(separator: ";", omittingEmptySubsequences: false)
            guard pieces.first?.trimmed.lowercased() == "form-data" else { throw Malformed("a part is not form-data") }
            for piece in pieces.dropFirst() {
                guard let (key, text) = parameter(piece) else { throw Malformed("a part's Content-Disposition cannot be read") }
                if key == "name" { name = text }
                if key == "filename" { fileName = text }
            }
        }
        guard let name else { throw Malformed("a part has no Content-Disposition name") }
        return Part(name: name, fileName: fileName, contentType: contentType, bytes: bytes)
    }

    /// `key=value` or `key="quoted \"value\""`, key lowercased.
    private static func parameter(_ piece: Substring) -> (String, String)? {
        guard let equals = piece.firstIndex(of: "=") else { return nil }
        let key = piece[..<equals].trimmed.lowercased()
        let raw = piece[piece.index(after: equals)...].trimmed
        guard raw.hasPrefix("\"") else { return (key, raw) }
        var value = "", escaped = false, closed = false
        for character in raw.dropFirst() {
            if escaped { value.append(character); escaped = false; continue }
            if character == "\\" { escaped = true; continue }
            if character == "\"" { closed = true; break }
            value.append(character)
        }
        return closed ? (key, value) : nil
    }

    /// Where `needle` first starts in `haystack` at or after `start` (and, with `within`, before
    /// `start + within`).
    static func find(_ needle: [UInt8], in haystack: [UInt8], from start: Int, within: Int = .max) -> Int? {
        let last = min(haystack.count - needle.count, within == .max ? .max : start + within - needle.count)
        guard let first = needle.first, start <= last else { return nil }
        var i = start
        while i <= last {
            if haystack[i] == first {
                var j = 1
                while j < needle.count, haystack[i + j] == needle[j] { j += 1 }
                if j == needle.count { return i }
            }
            i += 1
        }
        return nil
    }
}

extension StringProtocol {
    fileprivate var trimmed: String {
        String(drop { $0 == " " || $0 == "\t" }.reversed().drop { $0 == " " || $0 == "\t" }.reversed())
    }
}
