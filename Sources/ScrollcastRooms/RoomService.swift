import Logging
import ScrollcastRecording
import ScrollWire

/// The room layer as a transport sees it: viewers come and go, send messages, and ask for the
/// dynamic HTTP routes. It owns the registry (which keeps the frame timer) and the hub, and runs
/// housekeeping; a transport adapter turns its own events into these calls, all on the room thread.
@RoomActor public final class RoomService {
    /// The live rooms.
    public let registry: RoomRegistry
    /// The viewers' connections.
    public let hub: ViewerHub
    private let scheduler: RoomScheduler
    /// The metrics in Prometheus's text format, for `GET /metrics`.
    private let metricsExposition: () -> [UInt8]
    private let logger: Logger
    private let configuredOrigins: [String]?
    private let host: String
    private let store: RoomStore
    private let scenes: SceneCatalogue
    private let framePeriod: Double
    /// Origins allowed to open a WebSocket; nil: any. Known once the port is.
    private var allowedOrigins: Set<String>? = []
    private let cluster: RoomClusterNode?
    private let exports: RecordingExports
    private let uploads: SceneUploadRoute

    /// A service for rooms made from `services`, with its timers on `scheduler`. Origins are
    /// checked against `allowedOrigins` (nil: the server's own address once it is bound). With
    /// `cluster`, `services` should hold the cluster's store, ownership and relay, and viewers
    /// join through the cluster's directory.
    public init(limits: ServerLimits, services: RoomServices, scheduler: RoomScheduler,
                metricsExposition: @escaping () -> [UInt8], logger: Logger,
                allowedOrigins: [String]?, host: String, cluster: RoomClusterNode? = nil) {
        registry = RoomRegistry(limits: limits, services: services, scheduler: scheduler)
        hub = ViewerHub(limits: limits, registry: registry, clock: services.clock, metrics: services.metrics, logger: logger,
                        viewerNamePrefix: cluster?.viewerNamePrefix ?? "")
        self.cluster = cluster
        self.scheduler = scheduler
        self.metricsExposition = metricsExposition
        self.logger = logger
        self.configuredOrigins = allowedOrigins
        self.host = host
        self.store = services.store
        self.scenes = services.scenes
        self.framePeriod = limits.tickMilliseconds
        exports = RecordingExports(limits: limits, scenes: services.scenes, metrics: services.metrics, logger: logger)
        uploads = SceneUploadRoute(scenes: services.scenes, store: services.sceneUploads, limits: limits.sceneUploads,
                                   clock: services.clock, logger: logger)
        if let cluster {
            hub.directory = cluster.makeDirectory(registry: registry)
        } else {
            hub.directory = LocalRoomDirectory(registry: registry, logger: logger)
        }
    }

    /// How often housekeeping runs, ms.
    public static let housekeepingInterval = 1000.0

    /// The transport is listening on `port`: fixes the allowed origins and starts housekeeping.
    /// Call once, on the room thread.
    public func started(port: Int) {
        allowedOrigins = Self.origins(configured: configuredOrigins, host: host, port: port)
        scheduler.scheduleRepeating(everyMilliseconds: Self.housekeepingInterval) { [hub] in
            hub.housekeeping()
        }
        cluster?.start()
    }

    /// Whether a WebSocket from `origin` may open: nil if so, else the reason it may not.
    /// Clients sending no Origin (not browsers) are always allowed.
    public func refusal(forOrigin origin: String?) -> String? {
        guard let origin, let allowedOrigins, !allowedOrigins.contains(origin) else { return nil }
        logger.notice("refusing WebSocket from another origin", metadata: ["origin": "\(origin)"])
        return "origin \(origin) is not allowed"
    }

    /// A viewer connected, speaking `subprotocol` (`scrollcast.v2` gets version 2, anything else
    /// version 1); it must `join` within the deadline.
    public func opened(_ viewer: ViewerID, sink: ViewerSink, subprotocol: String?) {
        hub.open(viewer, sink: sink, version: subprotocol.flatMap(WireVersion.init(subprotocol:)) ?? .v1)
    }

    /// A text message from a viewer, as UTF-8 bytes.
    public func receivedText(_ utf8: some Collection<UInt8>, from viewer: ViewerID) {
        hub.receiveText(utf8, from: viewer)
    }

    /// A binary message from a viewer.
    public func receivedBinary(from viewer: ViewerID) {
        hub.receiveBinary(from: viewer)
    }

    /// A viewer's connection is gone.
    public func closed(_ viewer: ViewerID) {
        hub.closed(viewer)
    }

    /// `GET /metrics` (Prometheus text format), `GET /healthz`, `GET /scenes` (the scenes a
    /// room can be made with), `GET /scenes/NAME` (one as `SceneBytes`) and the scenes' own
    /// images; nil for any other path.
    public func respond(method: String, path: String, query: String = "") -> HTTPReply? {
        guard method == "GET" || method == "HEAD" else { return nil }
        switch path {
        case "/healthz":
            return HTTPReply(contentType: "text/plain; charset=utf-8", body: Array("ok\n".utf8))
        case "/metrics":
            return HTTPReply(contentType: "text/plain; version=0.0.4; charset=utf-8", body: metricsExposition())
        case SceneListRoute.path:
            return HTTPReply(contentType: "application/json", body: SceneListRoute.body(scenes))
        default:
            if let reply = SceneBytesRoute.reply(path: path, scenes: scenes) { return reply }
            return scenes.asset(atPath: path).map { HTTPReply(contentType: $0.contentType, body: $0.bytes) }
        }
    }

    /// The most bytes of a request body `method` and `path` take (`POST /scenes`), or nil for
    /// a request that takes none (the transport answers it as any other).
    public func maxRequestBodyBytes(method: String, path: String) -> Int? {
        method == "POST" && path == SceneUploadRoute.path ? SceneUploadLimits.maxBodyBytes : nil
    }

    /// A request with a body, read whole (within `maxRequestBodyBytes`): `POST /scenes` from
    /// `client` (its IP address), answered into `writer` once checked, off the room thread.
    public func respond(method: String, path: String, contentType: String?, body: [UInt8], client: String,
                        into writer: HTTPBodyWriter) {
        guard maxRequestBodyBytes(method: method, path: path) != nil else { return writer.send(.text(status: 404, "not found")) }
        uploads.upload(contentType: contentType, body: body, client: client, into: writer)
    }

    /// The routes answered later and in pieces: `GET /recording?room=NAME` (the room's latest
    /// life as a recording, docs/recording.md), `query` being the request's query string, its
    /// arguments already URL-decoded and joined with "&" (e.g. `room=demo`), `authorization`
    /// the request's Authorization header (a locked room's key: `Bearer KEY`). Returns what to
    /// call with the response's writer, at once, on the room thread; nil for any other path.
    public func streamedRoute(method: String, path: String, query: String = "", authorization: String? = nil)
        -> ((HTTPBodyWriter) -> Void)? {
        guard method == "GET" || method == "HEAD", path == RecordingRoute.path else { return nil }
        return { [self] writer in recording(query: query, authorization: authorization, into: writer) }
    }

    /// Starts the export of the room's latest life: read and encoded by a worker, never on the
    /// room thread, which only asks the store for a reader. The worker checks a locked room's key.
    private func recording(query: String, authorization: String?, into writer: HTTPBodyWriter) {
        guard let room = RecordingRoute.room(inQuery: query) else {
            return writer.send(.text(status: 400, "name the room: \(RecordingRoute.path)?room=NAME (\(ScrollWire.roomNameRule))"))
        }
        guard let source = store as? RoomLogSource else {
            return writer.send(.text(status: 404, "no recordings here: this server keeps its rooms in memory only (--data none) or in a cluster's Redis, and neither keeps whole room logs; run a single node with --data PATH to record rooms"))
        }
        exports.start(room: room, key: RecordingRoute.key(inQuery: query, authorization: authorization),
                      reader: source.latestLifeReader(room: room), into: writer)
    }

    static func origins(configured: [String]?, host: String, port: Int) -> Set<String>? {
        if let configured {
            return configured.contains("*") ? nil : Set(configured)
        }
        var origins: Set<String> = ["http://\(host):\(port)"]
        if host == "127.0.0.1" || host == "localhost" || host == "0.0.0.0" {
            origins.formUnion(["http://127.0.0.1:\(port)", "http://localhost:\(port)"])
        }
        return origins
    }
}

/// A dynamic HTTP response of the room layer. Never cached: it reports live state.
public struct HTTPReply: Sendable {
    /// Status code.
    public var status: Int
    /// Value of the Content-Type header.
    public var contentType: String
    /// The whole body.
    public var body: [UInt8]
    /// Extra headers (name, value), e.g. ("content-disposition", "attachment").
    public var headers: [(String, String)]

    /// A response.
    public init(status: Int = 200, contentType: String, body: [UInt8], headers: [(String, String)] = []) {
        self.status = status
        self.contentType = contentType
        self.body = body
        self.headers = headers
    }

    /// A plain-text response: `message` and a newline.
    static func text(status: Int, _ message: String) -> HTTPReply {
        HTTPReply(status: status, contentType: "text/plain; charset=utf-8", body: Array((message + "\n").utf8))
    }
}

/// `GET /scenes`: `{"default": "demo", "scenes": ["demo", "seed-table", …]}`, the names `join.scene`
/// accepts in catalogue order, for the page to list.
public enum SceneListRoute {
    /// The route's path.
    public static let path = "/scenes"

    static func body(_ scenes: SceneCatalogue) -> [UInt8] {
        // Built-in names and scene files' names (A–Z a–z 0–9 _ - .) need no escaping.
        let names = scenes.entries.map { "\"\($0.name)\"" }.joined(separator: ", ")
        return Array("{\"default\": \"\(scenes.defaultName)\", \"scenes\": [\(names)]}\n".utf8)
    }
}

/// `GET /recording?room=NAME`: what the page's "Download recording" link fetches.
public enum RecordingRoute {
    /// The route's path.
    public static let path = "/recording"
    /// The Content-Type of a recording: JSON lines.
    public static let contentType = "application/x-ndjson; charset=utf-8"

    /// The room named by `room=` in a query string (arguments URL-decoded, joined with "&"), if
    /// it is a valid room name.
    public static func room(inQuery query: String) -> String? {
        for argument in query.split(separator: "&") where argument.hasPrefix("room=") {
            let name = String(argument.dropFirst("room=".count))
            return ScrollWire.isValidRoomName(name) ? name : nil
        }
        return nil
    }

    /// The driver key a request shows for a locked room: the Authorization header's
    /// `Bearer KEY`, else the query's `key=KEY` (for a link, which cannot carry a header).
    public static func key(inQuery query: String, authorization: String?) -> String? {
        if let authorization {
            let parts = authorization.split(separator: " ", maxSplits: 1, omittingEmptySubsequences: true)
            if parts.count == 2, parts[0].lowercased() == "bearer" { return String(parts[1].filter { $0 != " " }) }
        }
        for argument in query.split(separator: "&") where argument.hasPrefix("key=") {
            return String(argument.dropFirst("key=".count))
        }
        return nil
    }

    /// Why a locked room's recording is refused to a request showing `key` (nil: none), or nil
    /// when `key` unlocks it or the room is open: 401 without a key (with the header that
    /// names the scheme), 403 with a wrong one.
    public static func refusal(room: String, keyDigest: String?, key: String?) -> HTTPReply? {
        guard let keyDigest, !DriverKey.matches(digest: keyDigest, candidate: key) else { return nil }
        guard key != nil else {
            return HTTPReply(status: 401, contentType: "text/plain; charset=utf-8",
                             body: Array("room '\(room)' is locked: its recording needs the room's driver key (Authorization: Bearer KEY, or &key=KEY)\n".utf8),
                             headers: [("www-authenticate", "Bearer realm=\"scrollcast recording\"")])
        }
        return .text(status: 403, "that key does not unlock room '\(room)': its recording needs the room's driver key")
    }

    /// The name a download is saved under, e.g. `demo-life-2.scrollcast.jsonl`.
    public static func fileName(room: String, life: Int) -> String {
        "\(room)-life-\(life).scrollcast.jsonl"
    }
}
