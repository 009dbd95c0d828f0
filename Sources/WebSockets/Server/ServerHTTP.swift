internal import CLibWebSockets
internal import CWebSocketsShim

/// Plain HTTP on the WebSocket port: dynamic routes from the delegate first, then static files.
extension WebSocketServer {
    func handleHTTP(_ wsi: OpaquePointer, path: String) -> Int32 {
        statsBox.withLock { $0.httpRequests += 1 }
        if let refusal = headRefusal(wsi, keepMark: true) {
            return writeRefusal(wsi, refusal) && lws_http_transaction_completed(wsi) == 0 ? 0 : -1
        }
        let method = WebSocketServer.method(of: wsi)
        let query = LWS.queryString(wsi)
        if let limit = delegate.server(self, maxBodyBytesFor: method, path: path) {
            return beginBody(wsi, method: method, path: path, query: query, limit: limit)
        }
        if let start = delegate.server(self, streamResponseTo: method, path: path, query: query,
                                       authorization: LWS.header(wsi, WSI_TOKEN_HTTP_AUTHORIZATION)) {
            return beginStream(wsi, includeBody: method != "HEAD", start)
        }
        if let response = delegate.server(self, respondTo: method, path: path, query: query) {
            if response.status == 200, let tag = response.headers.first(where: { $0.0.lowercased() == "etag" })?.1 {
                return respondValidated(wsi, contentType: response.contentType, headers: response.headers, entityTag: tag,
                                        size: response.body.count, includeBody: method != "HEAD") { response.body }
            }
            return respond(wsi, response, includeBody: method != "HEAD")
        }
        guard method == "GET" || method == "HEAD", let staticFiles, let file = staticFiles.resolve(path) else {
            return respondWithStatus(wsi, 404, "not found")
        }
        if file.contentType.hasPrefix("text/html") {
            return servePage(wsi, file, from: staticFiles, includeBody: method != "HEAD")
        }
        return serveStatic(wsi, file, from: staticFiles, version: StaticFileVersions.requested(in: query),
                           includeBody: method != "HEAD")
    }

    /// A static file: its compressed copy when the client accepts one and it is fresh, a 304 when
    /// the client's cached copy is current. Asked for by its current content version
    /// (`?v=VERSION`, as the pages name it: `VersionedPage`), it may be kept for good; otherwise
    /// `no-cache` lets a browser keep it but ask each time, so a new build shows at once.
    private func serveStatic(_ wsi: OpaquePointer, _ file: StaticFiles.File, from files: StaticFiles, version: String?,
                             includeBody: Bool) -> Int32 {
        guard let variant = StaticFileVariant.choose(for: file, root: files.root, encodedRoot: files.encodedRoot,
                                                     acceptEncoding: LWS.header(wsi, WSI_TOKEN_HTTP_ACCEPT_ENCODING)) else {
            return respondWithStatus(wsi, 404, "not found")
        }
        // Only the current version is immutable: an old page's name for a file since rebuilt gets
        // today's bytes, which its browser must not keep under the old name.
        let current = version != nil && version == fileVersions.version(of: file.path)
        var headers = [("cache-control", current ? StaticFileVersions.immutable : "no-cache"), ("etag", variant.entityTag),
                       ("vary", "Accept-Encoding")]
        if let coding = variant.coding { headers.append(("content-encoding", coding.rawValue)) }
        // Read whole: the page's files are small (the largest, the .wasm, is ~130 KB).
        return respondValidated(wsi, contentType: file.contentType, headers: headers, entityTag: variant.entityTag,
                                size: variant.size, includeBody: includeBody) { StaticFiles.read(variant.path, count: variant.size) }
    }

    /// A `304` when the request's `If-None-Match` names `entityTag`, else a `200` of `size` bytes
    /// (headers only for a HEAD, the body read only for a GET; a 404 if it cannot be read now).
    private func respondValidated(_ wsi: OpaquePointer, contentType: String, headers: [(String, String)], entityTag: String,
                                  size: Int, includeBody: Bool, body: () -> [UInt8]?) -> Int32 {
        if let tags = LWS.header(wsi, WSI_TOKEN_HTTP_IF_NONE_MATCH), StaticFileVariant.ifNoneMatch(tags, names: entityTag) {
            return respond(wsi, HTTPResponse(status: 304, contentType: contentType, body: [], headers: headers), includeBody: false)
        }
        guard includeBody else {
            let head = HTTPResponse(status: 200, contentType: contentType, body: [], headers: headers)
            guard writeHead(wsi, head, contentLength: UInt64(size)) == 0 else { return -1 }
            return lws_http_transaction_completed(wsi) != 0 ? -1 : 0
        }
        guard let bytes = body() else { return respondWithStatus(wsi, 404, "not found") }
        return respond(wsi, HTTPResponse(status: 200, contentType: contentType, body: bytes, headers: headers), includeBody: true)
    }

    /// An HTML page with its named files' versions written in (`VersionedPage`), never kept
    /// without asking (`no-cache`): its tag is its digest, so a 304 costs one round trip.
    /// Sent as it is: its compressed copies would not hold the versions.
    private func servePage(_ wsi: OpaquePointer, _ file: StaticFiles.File, from files: StaticFiles, includeBody: Bool) -> Int32 {
        guard let status = FileStatus(file.path), let html = StaticFiles.read(file.path, count: status.size) else {
            return respondWithStatus(wsi, 404, "not found")
        }
        let page = VersionedPage(html: html, page: file, files: files) { fileVersions.version(of: $0.path) }
        let headers = [("cache-control", "no-cache"), ("etag", page.entityTag), ("vary", "Accept-Encoding")]
        return respondValidated(wsi, contentType: file.contentType, headers: headers, entityTag: page.entityTag,
                                size: page.body.count, includeBody: includeBody) { page.body }
    }

    /// Sends a small status page; returns what the callback should return.
    func respondWithStatus(_ wsi: OpaquePointer, _ status: UInt32, _ message: String) -> Int32 {
        respond(wsi, HTTPResponse(status: Int(status), text: message + "\n"), includeBody: true)
    }

    /// Writes headers now and the body on the next HTTP_WRITEABLE.
    func respond(_ wsi: OpaquePointer, _ response: HTTPResponse, includeBody: Bool) -> Int32 {
        guard writeHead(wsi, response, contentLength: UInt64(response.body.count)) == 0 else { return -1 }
        guard includeBody, !response.body.isEmpty else {
            return lws_http_transaction_completed(wsi) != 0 ? -1 : 0
        }
        pendingHTTPBodies[wsi] = response.body
        scws_request_writable(wsi)
        return 0
    }

    func writePendingHTTPBody(_ wsi: OpaquePointer) -> Int32 {
        guard let body = pendingHTTPBodies.removeValue(forKey: wsi) else { return 0 }
        let written = body.withUnsafeBytes { scws_http_write_body(wsi, $0.baseAddress, $0.count) }
        guard written >= 0 else { return -1 }
        return lws_http_transaction_completed(wsi) != 0 ? -1 : 0
    }

    private static func method(of wsi: OpaquePointer) -> String {
        let methods: [(lws_token_indexes, String)] = [
            (WSI_TOKEN_GET_URI, "GET"), (WSI_TOKEN_HEAD_URI, "HEAD"), (WSI_TOKEN_POST_URI, "POST"),
            (WSI_TOKEN_PUT_URI, "PUT"), (WSI_TOKEN_DELETE_URI, "DELETE"), (WSI_TOKEN_PATCH_URI, "PATCH"),
            (WSI_TOKEN_OPTIONS_URI, "OPTIONS"),
        ]
        for (token, name) in methods where lws_hdr_total_length(wsi, token) > 0 { return name }
        return "GET"
    }
}
