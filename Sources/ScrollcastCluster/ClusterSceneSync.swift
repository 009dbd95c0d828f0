import Dispatch
import Logging
import Redis
import ScrollcastRooms
import Synchronization

/// Brings every scene uploaded to any node of the cluster into this node's catalogue
/// (docs/cluster.md, "Uploaded scenes"), so its rooms, `GET /scenes/NAME` and the scene's images
/// answer here too, and a room taken over here shows its own scene.
///
/// A save announces the new name on `PREFIXscenes:new`; each announcement, and each time the
/// subscription is confirmed or the command link comes up (at start and after every lost link,
/// when announcements may have been missed), the node reads from Redis the uploads it lacks,
/// checks each exactly as an upload is checked, and offers it. All of it runs on a worker of its
/// own, one read at a time.
public final class ClusterSceneSync: Sendable {
    /// Where the uploads are kept: the server's `SceneUploadStore` in a cluster.
    public let store: RedisSceneUploadStore
    private let core: Core
    private let subscriber: RedisSubscriber

    /// A sync into `uploads` (the catalogue's) from Redis at `address`, for the node
    /// `configuration` names; the cluster keeps at most `maxBytes` of uploads.
    public init(address: RedisAddress, configuration: ClusterConfiguration, maxBytes: Int, uploads: UploadedScenes,
                logger: Logger) {
        // Both links start at once: whichever comes up last finds the other up and reads.
        let linked = Mutex<Core?>(nil)
        store = RedisSceneUploadStore(address: address, configuration: configuration, maxBytes: maxBytes) { state in
            guard state == .connected, let core = linked.withLock({ $0 }) else { return }
            core.worker.async { core.readAll() }
        }
        let core = Core(store: store, uploads: uploads, logger: logger)
        linked.withLock { $0 = core }
        self.core = core
        subscriber = RedisSubscriber(
            address: address, name: "scrollcast \(configuration.nodeID) scenes",
            onMessage: { _, payload in core.worker.async { core.readAnnounced(String(decoding: payload, as: UTF8.self)) } },
            onSubscribed: { _ in core.worker.async { core.readAll() } })
    }

    /// Connects and subscribes; the first confirmation reads every upload kept.
    public func start() {
        store.start()
        subscriber.subscribe(store.keys.announcements)
        subscriber.start()
    }

    /// Closes both connections. Thread-safe.
    public func close() {
        subscriber.close()
        store.close()
    }

    /// Runs `then` on the sync's worker once the scene `name` is in the catalogue, or Redis has
    /// none of that name, or cannot be read now: a node taking over a room reads its scene first.
    public func ensure(_ name: String, then: @escaping @Sendable () -> Void) {
        let core = core
        core.worker.async {
            if !core.uploads.contains(name) { core.read(name) }
            then()
        }
    }

    /// Whether Redis has confirmed the subscription to the announcements.
    var isSubscribed: Bool { subscriber.subscribedChannels.contains(store.keys.announcements) }

    /// What the worker keeps: all of it is touched on the worker only.
    private final class Core: @unchecked Sendable {
        let store: RedisSceneUploadStore
        let uploads: UploadedScenes
        let logger: Logger
        let worker = DispatchQueue(label: "scrollcast.scene-sync", qos: .utility)
        /// Uploads whose check failed here (a limit changed?): logged once, not read again.
        private var leftOut: Set<String> = []

        init(store: RedisSceneUploadStore, uploads: UploadedScenes, logger: Logger) {
            self.store = store
            self.uploads = uploads
            self.logger = logger
        }

        /// Reads every upload this node lacks. With the command link down it waits for the link
        /// to come up, which reads again; a failure with it up is the lost link's, likewise.
        func readAll() {
            guard store.isConnected else { return }
            do {
                for name in try store.names().sorted() where !uploads.contains(name) && !leftOut.contains(name) {
                    read(name)
                }
            } catch {
                logger.warning("cannot read the uploaded scenes from Redis; reading again when the link is back",
                               metadata: ["error": "\(error)"])
            }
        }

        func readAnnounced(_ name: String) {
            guard !uploads.contains(name), !leftOut.contains(name) else { return }
            read(name)
        }

        /// Reads, checks and offers the upload called `name`, if Redis has it.
        func read(_ name: String) {
            do {
                guard let upload = try store.loadUpload(named: name) else { return }
                if let problem = SceneUploadRoute.restore(upload, into: uploads) {
                    leftOut.insert(name)
                    logger.error("uploaded scene left out: \(problem)")
                } else {
                    logger.info("uploaded scene read from Redis", metadata: ["scene": "\(name)", "bytes": "\(upload.byteCount)"])
                }
            } catch {
                logger.warning("cannot read an uploaded scene from Redis", metadata: ["scene": "\(name)", "error": "\(error)"])
            }
        }
    }
}
