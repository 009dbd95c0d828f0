/// A complete HTTP response produced by the application for a dynamic route.
public struct HTTPResponse: Sendable {
    /// Status code, e.g. 200.
    public var status: Int
    /// Value of the Content-Type header.
    public var contentType: String
    /// The whole body.
    public var body: [UInt8]
    /// Extra headers (name, value), e.g. ("cache-control", "no-store").
    public var headers: [(String, String)]
    /// A response with a raw body.
    public init(status: Int = 200, contentType: String, body: [UInt8], headers: [(String, String)] = []) {
        self.status = status
        self.contentType = contentType
        self.body = body
        self.headers = headers
    }
    /// A strong validator naming `body`'s bytes (a digest of them). A 200 that carries it as
    /// its `etag` header is answered `304` with no body when the request's `If-None-Match` names
    /// it, so a route whose bytes rarely change can let browsers keep them and ask.
    public static func entityTag(naming body: [UInt8]) -> String {
        "\"c-\(StaticFileVersions.digest(body))\""
    }
    /// A text response (UTF-8), plain text by default.
    public init(status: Int = 200, text: String, contentType: String = "text/plain; charset=utf-8",
                headers: [(String, String)] = []) {
        self.init(status: status, contentType: contentType, body: Array(text.utf8), headers: headers)
    }
}
