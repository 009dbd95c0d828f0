import ScrollWire

/// `GET /scenes/NAME`: the whole scene `NAME` (any the catalogue has: built-in, file or
/// uploaded) as `SceneBytes`, for a page's replica to build a scene it has not built in
/// (docs/wasm.md, "Any scene"). Fetched once per scene rather than sent with every snapshot: a
/// scene of 20,000 rows is a few hundred KB, and a name stands for one scene while the server
/// runs (a file's is read at start-up, an upload's name is its content's hash).
public enum SceneBytesRoute {
    /// Where the route's paths start.
    public static let prefix = "/scenes/"
    /// The Content-Type of scene bytes.
    public static let contentType = "application/octet-stream"

    /// The reply for `path`, nil when it is not this route's; 404 for a scene the catalogue lacks.
    static func reply(path: String, scenes: SceneCatalogue) -> HTTPReply? {
        guard path.hasPrefix(prefix) else { return nil }
        let name = String(path.dropFirst(prefix.count))
        guard let configuration = scenes.configuration(named: name) else {
            return .text(status: 404, "no scene '\(name)': GET /scenes lists them")
        }
        return HTTPReply(contentType: contentType, body: SceneBytes.encode(configuration))
    }
}
