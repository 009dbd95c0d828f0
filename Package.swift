// swift-tools-version: 6.1
import PackageDescription

let package = Package(
    name: "Scrollcast",
    products: [
        .library(name: "ScrollEngine", targets: ["ScrollEngine"]),
        .library(name: "ScrollWire", targets: ["ScrollWire"]),
        .library(name: "WebSockets", targets: ["WebSockets"]),
        .library(name: "Redis", targets: ["Redis"]),
        .library(name: "ScrollcastRooms", targets: ["ScrollcastRooms"]),
        .library(name: "ScrollcastServer", targets: ["ScrollcastServer"]),
        .library(name: "ScrollcastServerTesting", targets: ["ScrollcastServerTesting"]),
        .library(name: "TestSupport", targets: ["TestSupport"]),
        .library(name: "ScrollcastStore", targets: ["ScrollcastStore"]),
        .library(name: "ScrollcastRecording", targets: ["ScrollcastRecording"]),
        .library(name: "ScrollcastCluster", targets: ["ScrollcastCluster"]),
        .executable(name: "scrollcast", targets: ["scrollcast"]),
        .executable(name: "scrollcast-load", targets: ["scrollcast-load"]),
        .executable(name: "scrollcast-bench-engine", targets: ["scrollcast-bench-engine"]),
        .library(name: "LinkEmulator", targets: ["LinkEmulator"]),
        .executable(name: "scrollcast-link", targets: ["scrollcast-link"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-metrics", from: "2.13.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus", from: "2.4.1"),
        .package(url: "https://github.com/HdrHistogram/hdrhistogram-swift", from: "0.2.0"),
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
    ],
    targets: [
        // Pure, deterministic effect engine: standard library only.
        .target(name: "ScrollEngine"),
        .target(name: "ScrollWire", dependencies: ["ScrollEngine"]),
        // The engine as a page runs it (docs/wasm.md): also compiled to WebAssembly by make.
        .target(name: "ScrollReplica", dependencies: ["ScrollEngine", "ScrollWire"]),
        // The native half of the native/WebAssembly cross-check.
        .executableTarget(name: "scrollcast-replica-check", dependencies: ["ScrollReplica", "ScrollEngine", "ScrollWire"]),
        // Recordings (docs/recording.md): the file format and replay, shared by the server's
        // download route, `scrollcast record`/`replay` and tools; engine and wire only.
        .target(name: "ScrollcastRecording", dependencies: ["ScrollEngine", "ScrollWire"]),
        // Scenes from JSON files (docs/scenes.md): a line-keeping JSON reader, the decoder and
        // validator, and image checks; Foundation for files, zlib for PNG data, the engine for the result.
        .target(name: "SceneFiles", dependencies: ["ScrollEngine", "CZlib"]),
        // zlib (Debian's zlib1g-dev, which libwebsockets-dev pulls in): a PNG's image data must inflate.
        .systemLibrary(name: "CZlib", pkgConfig: "zlib", providers: [.apt(["zlib1g-dev"])]),

        // Debian's libwebsockets-dev; shims live in a regular C target because SwiftPM
        // does not notice header edits inside a systemLibrary target.
        .systemLibrary(
            name: "CLibWebSockets",
            pkgConfig: "libwebsockets",
            providers: [.apt(["libwebsockets-dev"])]
        ),
        // libev: the epoll loop lws's libev plugin runs on (Sources/CWebSocketsShim/event_loop.c).
        .target(name: "CWebSocketsShim", dependencies: ["CLibWebSockets"], linkerSettings: [.linkedLibrary("ev")]),
        // libcrypto's SHA-256 for driver-key digests (libssl-dev comes with libwebsockets-dev).
        .systemLibrary(name: "CCrypto", pkgConfig: "libcrypto", providers: [.apt(["libssl-dev"])]),
        .target(name: "WebSockets", dependencies: ["CLibWebSockets", "CWebSocketsShim"]),

        // Debian's libhiredis-dev (0.14), for the cluster; shims in a regular C target, as above.
        .systemLibrary(
            name: "CHiredis",
            pkgConfig: "hiredis",
            providers: [.apt(["libhiredis-dev"])]
        ),
        .target(name: "CHiredisShim", dependencies: ["CHiredis"]),
        .target(name: "Redis", dependencies: ["CHiredis", "CHiredisShim"]),
        // A real redis-server for tests, on a free loopback port in a temporary directory.
        .target(name: "RedisTesting", dependencies: ["Redis"]),
        // The one event collector and polling wait of every test target: Foundation only, so the
        // transport and Redis tests use it without depending on the room layer.
        .target(name: "TestSupport"),
        // The one priority queue (a binary min-heap): room deadlines and the link emulator's due chunks.
        .target(name: "BinaryHeap"),

        // The room layer (docs/design.md): interfaces, rooms, hub, registry, timers and the
        // in-memory implementations. No transport: the engine, the wire format, recordings
        // (engine and wire only), swift-log, swift-metrics, and libcrypto's SHA-256 for
        // driver-key digests (a system library, not libwebsockets).
        .target(
            name: "ScrollcastRooms",
            dependencies: [
                "ScrollEngine", "ScrollWire", "ScrollcastRecording", "CCrypto", "CThreadPriority", "BinaryHeap",
                "SceneFiles",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
            ]
        ),
        // The server: the libwebsockets adapter and Prometheus, over the room layer.
        .target(
            name: "ScrollcastServer",
            dependencies: [
                "ScrollcastRooms", "ScrollEngine", "ScrollWire", "ScrollcastRecording", "WebSockets",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "Prometheus", package: "swift-prometheus"),
            ]
        ),
        // Test doubles for the room layer (a manual clock and scheduler, an in-memory metrics backend
        // over swift-metrics' MetricsTestKit), as NIOEmbedded is for NIO. Also the home of the
        // recording viewer sink; re-exports TestSupport: the one testing module of every test target.
        .target(
            name: "ScrollcastServerTesting",
            dependencies: [
                "ScrollcastRooms", "ScrollWire", "TestSupport",
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "MetricsTestKit", package: "swift-metrics"),
            ]
        ),
        // Durable rooms: a RoomStore over SQLite (GRDB), written off the room thread.
        .target(
            name: "ScrollcastStore",
            dependencies: [
                "ScrollcastRooms", "ScrollEngine",
                .product(name: "GRDB", package: "GRDB.swift"),
            ]
        ),
        // Rooms across nodes (docs/cluster.md): leases, relay and store on Redis.
        .target(
            name: "ScrollcastCluster",
            dependencies: [
                "ScrollcastRooms", "ScrollEngine", "ScrollWire", "ScrollcastRecording", "Redis",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
            ]
        ),
        // The in-memory broker (InMemoryBroker, InMemoryClusterBackend) a whole cluster runs on in
        // one test, with faults on demand: for tests only, never linked into `scrollcast`.
        .target(name: "ScrollcastClusterTesting", dependencies: ["ScrollcastCluster", "ScrollcastRooms"]),
        .executableTarget(
            name: "scrollcast",
            dependencies: [
                "ScrollcastServer", "ScrollcastRooms", "ScrollcastStore", "ScrollcastCluster", "Redis", "ScrollcastRecording", "ScrollEngine", "ScrollWire", "WebSockets", "SceneFiles",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "Prometheus", package: "swift-prometheus"),
            ]
        ),
        .executableTarget(
            name: "scrollcast-load",
            dependencies: [
                "WebSockets", "ScrollWire", "ScrollEngine", "ScrollReplica", "ScrollcastRecording", "LinkEmulator",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Histogram", package: "hdrhistogram-swift"),
            ]
        ),
        .executableTarget(name: "scrollcast-bench-engine", dependencies: ["ScrollEngine"]),
        // A TCP proxy that behaves like a real link (docs/links.md): Glibc, and the engine for its seeded generator.
        .target(name: "CLinkSystem"),
        .target(name: "CThreadPriority"),
        .target(name: "LinkEmulator", dependencies: ["CLinkSystem", "ScrollEngine", "BinaryHeap"]),
        .executableTarget(
            name: "scrollcast-link",
            dependencies: ["LinkEmulator", .product(name: "ArgumentParser", package: "swift-argument-parser")]
        ),
        .executableTarget(
            name: "scrollcast-bench-store",
            dependencies: ["ScrollEngine", "ScrollcastRooms", "ScrollcastServerTesting", "ScrollcastStore"]
        ),
        // The room thread's CPU per frame on a manual clock, no sockets (`make bench-rooms`).
        .executableTarget(
            name: "scrollcast-bench-rooms",
            dependencies: [
                "ScrollEngine", "ScrollWire", "ScrollcastRooms", "ScrollcastServerTesting",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
            ]
        ),
        // libFuzzer target for the protocol decoders (`make fuzz`); a corpus replayer otherwise.
        .executableTarget(name: "scrollwire-fuzz", dependencies: ["ScrollWire"]),

        .testTarget(name: "ScrollEngineTests", dependencies: ["ScrollEngine"]),
        .testTarget(name: "SceneFilesTests", dependencies: ["SceneFiles", "ScrollEngine"]),
        .testTarget(name: "ScrollWireTests", dependencies: ["ScrollWire", "ScrollEngine"]),
        .testTarget(name: "ScrollReplicaTests", dependencies: ["ScrollReplica", "ScrollEngine", "ScrollWire", "ScrollcastRooms"]),
        .testTarget(name: "WebSocketsTests", dependencies: ["WebSockets", "TestSupport"]),
        .testTarget(name: "LinkEmulatorTests", dependencies: ["LinkEmulator"]),
        .testTarget(name: "BinaryHeapTests", dependencies: ["BinaryHeap"]),
        // Against real redis-server processes the tests start and kill themselves.
        .testTarget(name: "RedisTests", dependencies: ["Redis", "RedisTesting", "TestSupport"]),
        .testTarget(
            name: "ScrollcastClusterTests",
            dependencies: [
                "ScrollcastCluster", "ScrollcastClusterTesting", "ScrollcastRooms", "ScrollcastServerTesting", "ScrollWire", "Redis",
                "RedisTesting", "ScrollEngine", "ScrollReplica",
            ]
        ),
        // The load generator's pure parts (URL lists, where connections go, the identity check).
        .testTarget(name: "ScrollcastLoadTests", dependencies: ["scrollcast-load", "ScrollEngine", "ScrollWire", "ScrollReplica"]),
        .testTarget(name: "ScrollcastRecordingTests", dependencies: ["ScrollcastRecording", "ScrollEngine", "ScrollWire"]),
        .testTarget(
            name: "ScrollcastServerTests",
            dependencies: [
                "ScrollcastRooms", "ScrollcastServer", "ScrollcastServerTesting", "ScrollEngine", "ScrollWire", "ScrollcastRecording", "ScrollReplica",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Prometheus", package: "swift-prometheus"),
            ]
        ),
        .testTarget(
            name: "ScrollcastStoreTests",
            dependencies: [
                "ScrollcastStore", "ScrollcastRooms", "ScrollcastServerTesting", "ScrollEngine", "ScrollcastRecording",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
    ]
)
