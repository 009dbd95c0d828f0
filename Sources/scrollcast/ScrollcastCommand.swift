import ArgumentParser
import Foundation
import Logging
import Metrics
import Prometheus
import ScrollEngine
import Redis
import ScrollcastCluster
import ScrollcastRooms
import ScrollcastServer
import ScrollcastStore
import WebSockets

/// `scrollcast [serve]`: serves the page and runs the rooms.
struct ServeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Serve the Scrollcast page and stream iOS-style scroll effects to every viewer of a room.",
        discussion: ServeCommand.discussion)

    /// How long start-up waits for a cluster node's links to Redis before it announces the port
    /// anyway (docs/cluster.md, "Start-up").
    static let redisStartWaitMilliseconds = 3000

    static let discussion = """
        Open http://HOST:PORT/?room=NAME in a browser. The first stdout line is \
        "scrollcast listening on http://HOST:PORT". SIGINT/SIGTERM close every viewer with 1001 and exit 0.
        """

    @Option(help: "Address to listen on.")
    var host = "127.0.0.1"

    @Option(help: "TCP port; 0 picks any free port (see the first stdout line).")
    var port = 8080

    @Option(name: .customLong("public"),
            help: "Folder with the page (index.html and its modules). Default: the package's Public/ next to the executable or in the current directory.")
    var publicDirectory: String?

    @Option(help: ArgumentHelp(
        "Folder of scene files (NAME.json and its images, docs/scenes.md) to offer beside the built-in scenes, as ?scene=NAME and join.scene. A bad file is logged with its errors and left out; check files first with 'scrollcast scene check'. Every node of a cluster needs the same folder.",
        valueName: "dir"))
    var scenes: String?

    @Option(name: .customLong("encoded"),
            help: "Folder of gzip and brotli copies of the page's files (`make precompress` makes them). Default: .build/public-encoded beside the page's folder, if there.")
    var encodedDirectory: String?

    @Option(help: "Scene uploads (POST /scenes) one client IP address may start per minute; more are refused with 429 (docs/scenes.md, \"Uploads\").")
    var uploadsPerMinute = SceneUploadLimits.uploadsPerMinute

    @Option(help: "Frames per second while a room animates (1…240).")
    var fps = 60

    @Option(help: "Most open viewer connections; more are closed with 1013.")
    var maxViewers = 10_000

    @Option(help: "Most live rooms; a join that would create one more is closed with 1013.")
    var maxRooms = 1_000

    @Option(help: "Log level: trace, debug, info, notice, warning, error or critical.")
    var logLevel = "info"

    @Option(help: "Comma-separated origins allowed to open a WebSocket, e.g. http://example.com:8080; '*' allows any. Default: the server's own http://HOST:PORT.")
    var allowedOrigins: String?

    @Option(help: "Seconds a room with no viewers lives on before it is dropped.")
    var roomGrace: Double = 30

    @Option(help: "Seconds a request to drive a locked room stays open unanswered (docs/protocol.md, \"Sharing\").")
    var driveRequestLifetime: Double = 30

    @Option(help: ArgumentHelp(
        "SQLite file rooms are kept in, so they survive eviction and restarts (created with its directory if missing; relative to the working directory). 'none': rooms live only in memory while they have viewers.",
        valueName: "path"))
    var data = "./data/scrollcast.sqlite"

    @Option(help: ArgumentHelp(
        "With --data PATH: rooms nobody has used for this long are deleted from the file (checked at start and every 5 minutes; e.g. 7d, 12h, 30m, 90s, or 'never').",
        valueName: "duration"))
    var roomTTL = RetentionDuration(argument: "7d")!

    @Option(help: ArgumentHelp(
        "With --data PATH: log entries older than this are deleted (rooms still come back from their checkpoint; e.g. 24h, or 'never').",
        valueName: "duration"))
    var logWindow = RetentionDuration(argument: "24h")!

    @Option(help: ArgumentHelp(
        "Join a cluster of nodes sharing rooms through this Redis (e.g. redis://127.0.0.1:6379/0; run it with --appendonly yes). Rooms are then kept in Redis, not in --data. See docs/cluster.md.",
        valueName: "url"))
    var redis: String?

    @Option(help: ArgumentHelp(
        "With --redis: this node's id, unique in the cluster (default HOST:PORT). Viewer names on this node start with it.",
        valueName: "id"))
    var nodeID: String?

    @Flag(help: "Serve only a WebSocket echo endpoint at /echo for conformance tests (Autobahn): no page, no rooms, no subprotocol required, messages up to 16 MiB.")
    var conformanceEcho = false

    @Option(help: ArgumentHelp(
        "normal, or realtime: the room thread runs in the real-time round-robin class, ahead of every ordinary process, so a busy machine does not hold frames back (needs CAP_SYS_NICE; otherwise a warning and normal). See docs/design.md.",
        valueName: "priority"))
    var roomThreadPriority: RoomThreadPriority = .normal

    @Option(help: ArgumentHelp("Seconds of silence before a viewer is pinged; it is dropped after three silent intervals.", visibility: .hidden))
    var pingInterval = 20

    @Option(help: ArgumentHelp("Seconds an HTTP request may take to arrive whole.", visibility: .hidden))
    var httpTimeout = 10

    func validate() throws {
        guard uploadsPerMinute >= 1 else { throw ValidationError("--uploads-per-minute must be at least 1, got \(uploadsPerMinute)") }
        guard (1...240).contains(fps) else { throw ValidationError("--fps must be 1…240, got \(fps)") }
        guard (0...65535).contains(port) else { throw ValidationError("--port must be 0…65535, got \(port)") }
        guard maxViewers >= 1 else { throw ValidationError("--max-viewers must be at least 1") }
        guard maxRooms >= 1 else { throw ValidationError("--max-rooms must be at least 1") }
        guard roomGrace >= 0, roomGrace.isFinite else { throw ValidationError("--room-grace must be 0 or more seconds") }
        guard driveRequestLifetime >= 1, driveRequestLifetime <= 3600 else {
            throw ValidationError("--drive-request-lifetime must be 1…3600 seconds")
        }
        guard (1...3600).contains(pingInterval) else { throw ValidationError("--ping-interval must be 1…3600 seconds") }
        guard (1...600).contains(httpTimeout) else { throw ValidationError("--http-timeout must be 1…600 seconds") }
        guard !data.isEmpty else { throw ValidationError("--data must be a file path or 'none'") }
        if let redis {
            do { _ = try RedisAddress(url: redis) } catch { throw ValidationError("--redis: \(error.message)") }
            guard port != 0 || nodeID != nil else {
                throw ValidationError("--redis with --port 0 needs --node-id: the default id is HOST:PORT, and the port is not known yet")
            }
        } else if nodeID != nil {
            throw ValidationError("--node-id means something only with --redis")
        }
        if let nodeID {
            guard !nodeID.isEmpty, nodeID.count <= 64, !nodeID.contains("|"), !nodeID.contains("/"),
                  nodeID.unicodeScalars.allSatisfy({ $0.value > 0x20 && $0.value < 0x7F }) else {
                throw ValidationError("--node-id must be 1…64 printable ASCII characters without spaces, '|' or '/', got '\(nodeID)'")
            }
        }
        guard Logger.Level(rawValue: logLevel.lowercased()) != nil else {
            throw ValidationError("--log-level must be one of \(Logger.Level.allCases.map(\.rawValue).joined(separator: ", ")), got '\(logLevel)'")
        }
    }

    func run() throws {
        let level = Logger.Level(rawValue: logLevel.lowercased()) ?? .info
        LoggingSystem.bootstrap { label in
            var handler = StreamLogHandler.standardError(label: label)
            handler.logLevel = level
            return handler
        }
        let logger = Logger(label: "scrollcast")
        routeLibWebSocketsLog(to: Logger(label: "lws"), level: level)
        if conformanceEcho { try ConformanceEcho.run(host: host, port: port, logger: logger) }

        // Before anything binds: a folder that cannot be listed stops the server; bad files in it do not.
        let catalogue = try scenes.map { try SceneFolder.catalogue(adding: $0, logger: logger) } ?? .standard

        let registry = PrometheusCollectorRegistry()
        let factory = ServerMetrics.prometheusFactory(registry: registry)
        MetricsSystem.bootstrap(factory)

        let page = try PublicDirectory.resolve(publicDirectory)
        var configuration = ScrollcastServerConfiguration(
            publicDirectory: page,
            allowedOrigins: allowedOrigins.map { $0.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty } })
        configuration.encodedDirectory = try PublicDirectory.encoded(encodedDirectory, page: page)
        configuration.host = host
        configuration.port = port
        configuration.limits.framesPerSecond = fps
        configuration.limits.maxViewers = maxViewers
        configuration.limits.maxRooms = maxRooms
        configuration.limits.sceneUploads.uploadsPerMinute = uploadsPerMinute
        configuration.limits.roomGraceMilliseconds = roomGrace * 1000
        configuration.limits.driveRequestMilliseconds = driveRequestLifetime * 1000
        configuration.timeouts = ConnectionTimeouts(pingIntervalSeconds: pingInterval, httpRequestSeconds: httpTimeout)

        // Opened before binding, so a file the server cannot use stops it before anyone connects.
        // A cluster keeps its rooms in Redis instead.
        let database: RoomDatabase?
        do {
            database = data == "none" || redis != nil ? nil : try RoomDatabase.open(atPath: data)
        } catch {
            throw ValidationError(error.description)
        }
        // `validate()` checked the URL.
        let clusterAddress = redis.flatMap { try? RedisAddress(url: $0) }
        let clusterConfiguration = ClusterConfiguration(nodeID: nodeID ?? "\(host):\(port)")
        // In a cluster uploads live in Redis, read by the node once it reaches Redis (and a room
        // taken over waits for its scene); on one node they come back before anyone can join.
        let sceneSync = clusterAddress.map {
            ClusterSceneSync(address: $0, configuration: clusterConfiguration, maxBytes: configuration.limits.sceneUploads.maxServerBytes,
                             uploads: catalogue.uploads, logger: Logger(label: "cluster"))
        }
        let sceneUploads: SceneUploadStore = sceneSync?.store
            ?? database.map { SQLiteSceneUploadStore(database: $0) } ?? InMemorySceneUploadStore()
        if sceneSync == nil {
            do {
                for problem in try SceneUploadRoute.restore(from: sceneUploads, into: catalogue.uploads) {
                    logger.error("uploaded scene left out: \(problem)")
                }
            } catch {
                throw ValidationError("cannot read the uploaded scenes from \(database?.path ?? "memory"): \(error)")
            }
            if catalogue.uploads.count > 0 { logger.info("uploaded scenes read back", metadata: ["count": "\(catalogue.uploads.count)"]) }
        }
        // The server, its store and its cluster node are made on the room actor (its own queue
        // until the transport installs its service thread).
        let frozenConfiguration = configuration
        let (server, durableStore, clusterNode) = try RoomActor.runAndWait { () -> (ScrollcastServer, SQLiteRoomStore?, ClusterNode?) in
        var clusterNode: ClusterNode?
        var durableStore: SQLiteRoomStore?
        let server = ScrollcastServer(configuration: frozenConfiguration, metricsFactory: factory, prometheus: registry,
                                      logger: logger, scenes: catalogue, store: { scheduler in
            guard let database else { return InMemoryRoomStore() }
            let store = SQLiteRoomStore(
                database: database, scheduler: scheduler,
                retention: RoomRetention(roomTTL: roomTTL.seconds, logWindow: logWindow.seconds),
                onWriteFailure: { message in
                    logger.error("room store cannot write; row moves are refused (unavailable) until it can",
                                 metadata: ["error": "\(message)"])
                },
                onRecovery: { logger.notice("room store writes again; row moves are accepted") },
                onCompaction: { rooms, entries in
                    guard rooms + entries > 0 else { return }
                    logger.info("room store compacted", metadata: ["removedRooms": "\(rooms)", "deletedLogEntries": "\(entries)"])
                })
            durableStore = store
            return store
        }, sceneUploads: sceneUploads, cluster: clusterAddress.map { address in
            { scheduler, serverMetrics in
                let node = ClusterNode(configuration: clusterConfiguration, redis: address, scheduler: scheduler,
                                       serverMetrics: serverMetrics, metricsFactory: factory, logger: Logger(label: "cluster"))
                node.sceneSync = sceneSync
                clusterNode = node
                return node
            }
        })
        return (server, durableStore, clusterNode)
        }
        // Touched by the signal handler only after `server.shutdown()` has stopped the room
        // thread, the store's only other user.
        let storeToClose = durableStore
        let clusterToClose = clusterNode
        // Before binding, so a signal that comes as soon as the port is announced is not lost.
        ShutdownSignals.install { signal in
            logger.info("shutting down", metadata: ["signal": "\(signal)"])
            server.shutdown()
            // Queued log entries and moves reach the file before the process ends.
            // The service thread has stopped: the room actor is back on its own queue.
            _ = try? RoomActor.runAndWait {
                storeToClose?.close()
                clusterToClose?.close()
            }
            Foundation.exit(0)
        }
        let boundPort: Int
        do {
            boundPort = try RoomActor.runAndWait { try server.start() }
        } catch {
            throw ValidationError("cannot listen on \(host):\(port): \(error)")
        }
        if roomThreadPriority == .realtime {
            let error = try RoomActor.runAndWait { ThreadPriority.raiseToRealtime() }
            if error == 0 {
                logger.info("room thread runs at real-time priority")
            } else {
                logger.warning("room thread stays at normal priority: cannot raise it", metadata: ["errno": "\(error)"])
            }
        }
        if let clusterNode, !clusterNode.waitUntilLinked(milliseconds: Self.redisStartWaitMilliseconds) {
            logger.warning("Redis does not answer yet: serving anyway; joins of rooms not run here get 1013 until it does",
                           metadata: ["waited": "\(Self.redisStartWaitMilliseconds) ms"])
        }
        // Unbuffered write: scripts wait for this line to learn the port.
        FileHandle.standardOutput.write(Data("scrollcast listening on http://\(host):\(boundPort)\n".utf8))
        logger.info("serving", metadata: ["public": "\(configuration.publicDirectory)", "fps": "\(fps)",
                                          "data": "\(clusterAddress.map { "Redis \($0) (cluster node \(clusterConfiguration.nodeID))" } ?? database?.path ?? "none (rooms in memory only)")",
                                          "roomTTL": "\(roomTTL)", "logWindow": "\(logWindow)"])

        dispatchMain()
    }
}

/// lws log lines go to swift-log, at a matching level.
private func routeLibWebSocketsLog(to logger: Logger, level: Logger.Level) {
    let lwsLevel: LibWebSocketsLog.Level
    switch level {
    case .trace, .debug: lwsLevel = .info
    case .info, .notice: lwsLevel = .notice
    case .warning: lwsLevel = .warning
    case .error, .critical: lwsLevel = .error
    }
    LibWebSocketsLog.route(maximumLevel: lwsLevel) { lineLevel, line in
        switch lineLevel {
        case .error: logger.error("\(line)")
        case .warning: logger.warning("\(line)")
        case .notice: logger.notice("\(line)")
        case .info: logger.info("\(line)")
        case .debug: logger.debug("\(line)")
        }
    }
}

/// `--room-thread-priority`.
enum RoomThreadPriority: String, ExpressibleByArgument, CaseIterable {
    case normal
    case realtime
}
