/// Reads the server's Prometheus text from `GET /metrics`, for the counters that only the server
/// knows (frames it skipped for slow viewers).
struct MetricsScraper {
    let address: ServerAddress

    /// Fetches `/metrics` and returns every sample as `name{labels}` → value.
    func scrape() throws -> [String: Double] {
        let connection = try TCPConnection(host: address.host, port: address.port)
        let request = "GET /metrics HTTP/1.0\r\nHost: \(address.authority)\r\nAccept: text/plain\r\nConnection: close\r\n\r\n"
        try connection.send(Array(request.utf8))
        let response = String(decoding: try connection.readToEnd(limit: 8 << 20), as: UTF8.self)
        guard let headerEnd = response.range(of: "\r\n\r\n") else {
            throw TCPConnection.Failure(description: "malformed HTTP response from \(address.metricsURL)")
        }
        let statusLine = response[..<headerEnd.lowerBound].prefix { $0 != "\r" }
        let parts = statusLine.split(separator: " ", maxSplits: 2)
        guard parts.count >= 2, parts[1] == "200" else {
            throw TCPConnection.Failure(description: "\(address.metricsURL) answered \"\(statusLine)\"")
        }
        return Self.parse(String(response[headerEnd.upperBound...]))
    }

    /// Parses Prometheus text exposition: comment lines skipped, `name{labels} value [timestamp]`.
    static func parse(_ text: String) -> [String: Double] {
        var samples: [String: Double] = [:]
        for line in text.split(whereSeparator: { $0 == "\n" || $0 == "\r" }) {
            if line.hasPrefix("#") { continue }
            // The value follows the last space that is outside the label braces.
            let nameEnd: String.Index
            if let brace = line.lastIndex(of: "}") { nameEnd = line.index(after: brace) }
            else if let space = line.firstIndex(of: " ") { nameEnd = space }
            else { continue }
            let fields = line[nameEnd...].split(separator: " ")
            guard let first = fields.first, let value = Double(first) else { continue }
            samples[String(line[..<nameEnd])] = value
        }
        return samples
    }

    /// The sum of every sample that counts skipped frames (any name containing both `frame`
    /// and `skip`, e.g. `scrollcast_frames_skipped_total`), or nil when the server has none.
    static func skippedFrames(in samples: [String: Double]) -> Double? {
        let matching = samples.filter { key, _ in
            let name = key.prefix { $0 != "{" }.lowercased()
            return name.contains("frame") && name.contains("skip") && !name.hasSuffix("_created")
        }
        return matching.isEmpty ? nil : matching.values.reduce(0, +)
    }
}
