internal import CLibWebSockets
internal import CWebSocketsShim

/// A request whose body the delegate asked for (`maxBodyBytesFor`), read whole before it is
/// answered.
public struct HTTPRequestWithBody: Sendable {
    public var method: String
    public var path: String
    public var query: String
    /// The Content-Type header, if any.
    public var contentType: String?
    /// The client's numeric IP address.
    public var peerAddress: String
    public var body: [UInt8]
}

/// A body being read: the request it belongs to and the bytes so far.
struct PendingRequestBody {
    var request: HTTPRequestWithBody
    var expected: Int
}

/// Request bodies (`POST`): read into memory up to the delegate's limit, which Content-Length
/// must state beforehand (a body without one is refused 411, a larger one 413 at once).
extension WebSocketServer {
    /// Starts reading the body of a request the delegate takes one for; returns what the HTTP
    /// callback should return.
    func beginBody(_ wsi: OpaquePointer, method: String, path: String, query: String, limit: Int) -> Int32 {
        guard let lengthText = LWS.header(wsi, WSI_TOKEN_HTTP_CONTENT_LENGTH), let length = Int(lengthText), length >= 0 else {
            return respondWithStatus(wsi, 411, "a Content-Length is required")
        }
        guard length <= limit else {
            return respondWithStatus(wsi, 413, "the request body is \(length) bytes; at most \(limit) are taken here")
        }
        var request = HTTPRequestWithBody(method: method, path: path, query: query,
                                          contentType: LWS.header(wsi, WSI_TOKEN_HTTP_CONTENT_TYPE),
                                          peerAddress: LWS.peerAddress(wsi), body: [])
        if length == 0 { return answer(wsi, request) }
        request.body.reserveCapacity(length)
        pendingRequestBodies[wsi] = PendingRequestBody(request: request, expected: length)
        return 0
    }

    /// A piece of a body arrived.
    func receiveBody(_ wsi: OpaquePointer, _ bytes: UnsafeRawBufferPointer) -> Int32 {
        guard pendingRequestBodies[wsi] != nil else { return 0 }
        // lws stops at Content-Length; more than that would be its bug, not a client's.
        guard pendingRequestBodies[wsi]!.request.body.count + bytes.count <= pendingRequestBodies[wsi]!.expected else { return -1 }
        pendingRequestBodies[wsi]!.request.body.append(contentsOf: bytes)
        return 0
    }

    /// The whole body is in: the delegate answers.
    func completeBody(_ wsi: OpaquePointer) -> Int32 {
        guard let pending = pendingRequestBodies.removeValue(forKey: wsi) else { return 0 }
        return answer(wsi, pending.request)
    }

    private func answer(_ wsi: OpaquePointer, _ request: HTTPRequestWithBody) -> Int32 {
        beginStream(wsi, includeBody: true) { stream in delegate.server(self, respondTo: request, on: stream) }
    }
}
