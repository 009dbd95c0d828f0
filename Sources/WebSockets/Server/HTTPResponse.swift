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
    /// A text response (UTF-8), plain text by default.
    public init(status: Int = 200, text: String, contentType: String = "text/plain; charset=utf-8",
                headers: [(String, String)] = []) {
        self.init(status: status, contentType: contentType, body: Array(text.utf8), headers: headers)
    }
}
