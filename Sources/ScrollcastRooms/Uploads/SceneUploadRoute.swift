import Dispatch
import Logging
import SceneFiles
import ScrollWire

/// `POST /scenes`: a scene file and its images as `multipart/form-data` (a part `scene`, the
/// JSON file, and a part `image` per image file), checked exactly as `scrollcast scene check`
/// checks a file, kept in the store and offered as a scene named by the server. Answers JSON
/// (docs/scenes.md, "Uploads"): 201 `{"scene", "room", "link"}`, or `{"errors": [{"file",
/// "path", "line", "message"}]}` with 400, 413, 415, 422, 429, 503 or 507.
@RoomActor public final class SceneUploadRoute {
    /// The route's path (its GET lists the scenes: `SceneListRoute`).
    public static let path = "/scenes"

    private let uploads: UploadedScenes
    private let store: SceneUploadStore
    private let limits: SceneUploadLimits
    private let clock: RoomClock
    private let logger: Logger
    private let reservedNames: Set<String>
    private var clients: [String: TokenBucket] = [:]
    /// Where uploads are read, checked and kept, one at a time.
    private let worker = DispatchQueue(label: "scrollcast.scene-uploads", qos: .utility)

    /// A route adding to `scenes`' uploads and keeping them in `store`.
    public init(scenes: SceneCatalogue, store: SceneUploadStore, limits: SceneUploadLimits, clock: RoomClock, logger: Logger) {
        uploads = scenes.uploads
        reservedNames = Set(scenes.entries.map(\.name))
        self.store = store
        self.limits = limits
        self.clock = clock
        self.logger = logger
    }

    /// Answers one upload from `client` (its IP address) into `writer`: the rate is counted
    /// here, on the room thread; the upload is read, checked and kept on the route's worker,
    /// one at a time, so a large upload never holds up the rooms' frames.
    public func upload(contentType: String?, body: [UInt8], client: String, into writer: HTTPBodyWriter) {
        guard takeToken(client) else { return writer.send(rateLimited(client)) }
        let (uploads, store, limits, logger) = (uploads, store, limits, logger)
        worker.async {
            writer.send(Self.check(contentType: contentType, body: body, client: client,
                                   uploads: uploads, store: store, limits: limits, logger: logger))
        }
    }

    /// The same, answered at once on the calling thread (tests).
    public func upload(contentType: String?, body: [UInt8], client: String) -> HTTPReply {
        guard takeToken(client) else { return rateLimited(client) }
        return Self.check(contentType: contentType, body: body, client: client, uploads: uploads, store: store, limits: limits, logger: logger)
    }

    private func rateLimited(_ client: String) -> HTTPReply {
        Self.refusal(429, "more than \(limits.uploadsPerMinute) uploads in a minute from \(client): try again in a minute",
                     headers: [("retry-after", "60")])
    }

    private nonisolated static func check(contentType: String?, body: [UInt8], client: String, uploads: UploadedScenes,
                                          store: SceneUploadStore, limits: SceneUploadLimits, logger: Logger) -> HTTPReply {
        guard let contentType, let boundary = MultipartForm.boundary(ofContentType: contentType) else {
            return refusal(415, "send the scene as multipart/form-data (a part 'scene' and a part 'image' per image), not \(contentType ?? "no Content-Type")")
        }
        let form: MultipartForm
        do {
            form = try MultipartForm(body: body, boundary: boundary)
        } catch {
            return refusal(400, "the form data cannot be read: \(error.message)")
        }
        let upload: StoredSceneUpload
        switch sortParts(form.parts) {
        case .failure(let refusal): return refusal.reply
        case .success(let sorted): upload = sorted
        }
        if uploads.contains(upload.name) { return created(upload.name, again: true) }
        let scene: SceneFile
        switch SceneFileLoader.load(uploaded: upload.scene, images: upload.images, name: upload.name, label: upload.fileName) {
        case .failure(let errors):
            return reply(422, errors: errors.errors.map { (upload.fileName, $0.path, $0.line, $0.message) })
        case .success(let good): scene = good
        }
        // Only what the scene uses is kept.
        let used = Set(scene.images.map(\.sourcePath))
        let kept = StoredSceneUpload(name: upload.name, fileName: upload.fileName, scene: upload.scene,
                                     images: upload.images.filter { used.contains($0.key) })
        guard uploads.totalBytes + kept.byteCount <= limits.maxServerBytes else {
            logger.warning("scene upload refused: the server is full", metadata: ["bytes": "\(uploads.totalBytes)"])
            return full(limits.maxServerBytes)
        }
        do {
            try store.saveUpload(kept)
        } catch let error as SceneUploadStoreFull {
            // The shared store counts every node's uploads, some this node has not read yet.
            logger.warning("scene upload refused: the cluster's store is full", metadata: ["limit": "\(error.limit)"])
            return full(error.limit)
        } catch {
            logger.error("scene upload not kept: the store cannot write", metadata: ["error": "\(error)"])
            return refusal(503, "the server cannot keep the scene now (its store cannot write): try again later")
        }
        offer(scene, file: kept.scene, bytes: kept.byteCount, in: uploads)
        logger.info("scene uploaded", metadata: ["scene": "\(scene.name)", "bytes": "\(kept.byteCount)", "client": "\(client)"])
        return created(scene.name, again: false)
    }

    /// Adds a checked scene to `uploads`, its images served where the loader named them.
    public nonisolated static func offer(_ scene: SceneFile, file: [UInt8], bytes: Int, in uploads: UploadedScenes) {
        uploads.add(name: scene.name, configuration: scene.configuration, sceneFile: file,
                    assets: scene.images.map { SceneAsset(path: $0.servedPath, contentType: $0.format.contentType, bytes: $0.bytes) },
                    uploadBytes: bytes)
    }

    /// Reads back every upload `store` kept into `uploads`, checking each again (a limit may have
    /// changed since); returns the errors of those left out, one line each.
    public nonisolated static func restore(from store: SceneUploadStore, into uploads: UploadedScenes) throws -> [String] {
        try store.loadUploads().compactMap { restore($0, into: uploads) }
    }

    /// Checks one kept upload again and offers it in `uploads`; its errors in one line when it is
    /// left out, else nil.
    public nonisolated static func restore(_ upload: StoredSceneUpload, into uploads: UploadedScenes) -> String? {
        switch SceneFileLoader.load(uploaded: upload.scene, images: upload.images, name: upload.name, label: upload.fileName) {
        case .success(let scene):
            offer(scene, file: upload.scene, bytes: upload.byteCount, in: uploads)
            return nil
        case .failure(let errors):
            return "\(upload.name): \(errors.lines.joined(separator: " | "))"
        }
    }

    private nonisolated static func full(_ limit: Int) -> HTTPReply {
        refusal(507, "this server keeps at most \(limit / (1024 * 1024)) MiB of uploaded scenes and is full")
    }

    private nonisolated static func created(_ scene: String, again: Bool) -> HTTPReply {
        let room = "u-" + String(DriverKey.random().hex.prefix(12))
        var json = JSONWriter()
        json.beginObject()
        json.key("scene"); json.string(scene)
        json.key("room"); json.string(room)
        json.key("link"); json.string("/?room=\(room)&scene=\(scene)")
        json.key("existing"); json.bool(again)
        json.endObject()
        return HTTPReply(status: again ? 200 : 201, contentType: "application/json", body: json.bytes + [10])
    }

    private func takeToken(_ client: String) -> Bool {
        let now = clock.nowMilliseconds()
        let perMinute = Double(limits.uploadsPerMinute)
        if clients.count >= SceneUploadLimits.maxClientsTracked {
            clients = clients.filter { var bucket = $0.value; _ = bucket.take(now: now); return bucket.tokens < perMinute - 1 }
        }
        var bucket = clients[client] ?? TokenBucket(capacity: perMinute, ratePerSecond: perMinute / 60, now: now)
        let taken = bucket.take(now: now)
        clients[client] = bucket
        return taken
    }

    /// The upload in `parts`: one `scene` file, any number of `image` files up to the limit,
    /// each within its size; its name a digest of all of it.
    private nonisolated static func sortParts(_ parts: [MultipartForm.Part]) -> Result<StoredSceneUpload, Refused> {
        var scene: MultipartForm.Part?
        var images: [String: [UInt8]] = [:]
        var tooLarge: [(String?, String, Int?, String)] = []
        for part in parts {
            guard let fileName = part.fileName, !fileName.isEmpty else {
                return .failure(Refused(reply: refusal(400, "part '\(part.name)' is not a file: send the scene as 'scene' and each image as 'image', as files")))
            }
            switch part.name {
            case "scene":
                guard scene == nil else { return .failure(Refused(reply: refusal(400, "more than one scene file: send one part 'scene'"))) }
                scene = part
            case "image":
                guard images[fileName] == nil else { return .failure(Refused(reply: refusal(400, "two images named '\(fileName)'"))) }
                if part.bytes.count > SceneUploadLimits.maxImageBytes {
                    tooLarge.append((fileName, "$", nil, "image '\(fileName)' is \(part.bytes.count) bytes; an image may have at most \(SceneUploadLimits.maxImageBytes) (\(SceneUploadLimits.maxImageBytes / (1024 * 1024)) MiB)"))
                }
                images[fileName] = part.bytes
            default:
                return .failure(Refused(reply: refusal(400, "unknown part '\(part.name)': send 'scene' and 'image' parts only")))
            }
        }
        guard let scene, let sceneName = scene.fileName else { return .failure(Refused(reply: refusal(400, "no scene file: send the scene's JSON as a part 'scene'"))) }
        guard images.count <= SceneUploadLimits.maxImages else {
            return .failure(Refused(reply: refusal(413, "\(images.count) images; an upload has at most \(SceneUploadLimits.maxImages)")))
        }
        guard tooLarge.isEmpty else { return .failure(Refused(reply: reply(413, errors: tooLarge))) }
        let upload = StoredSceneUpload(name: "", fileName: sceneName, scene: scene.bytes, images: images)
        guard upload.byteCount <= SceneUploadLimits.maxSceneBytes else {
            return .failure(Refused(reply: refusal(413, "the upload is \(upload.byteCount) bytes; a scene and its images may have at most \(SceneUploadLimits.maxSceneBytes) (\(SceneUploadLimits.maxSceneBytes / (1024 * 1024)) MiB)")))
        }
        return .success(StoredSceneUpload(name: digestName(upload), fileName: sceneName, scene: scene.bytes, images: images))
    }

    /// `u-` and 24 hex digits of SHA-256 over the scene and its images (names and bytes, in name
    /// order, each length-prefixed): the same upload gets the same scene.
    nonisolated static func digestName(_ upload: StoredSceneUpload) -> String {
        var message: [UInt8] = []
        func append(_ bytes: [UInt8]) {
            withUnsafeBytes(of: UInt64(bytes.count).bigEndian) { message.append(contentsOf: $0) }
            message.append(contentsOf: bytes)
        }
        append(upload.scene)
        for name in upload.images.keys.sorted() {
            append(Array(name.utf8))
            append(upload.images[name]!)
        }
        let digits = Array("0123456789abcdef")
        return "u-" + String(SHA256.hash(message).prefix(12).flatMap { [digits[Int($0 >> 4)], digits[Int($0 & 15)]] })
    }

    /// A refusal as `Result`'s failure.
    private struct Refused: Error {
        var reply: HTTPReply
    }

    private nonisolated static func refusal(_ status: Int, _ message: String, headers: [(String, String)] = []) -> HTTPReply {
        reply(status, errors: [(nil, "$", nil, message)], headers: headers)
    }

    private nonisolated static func reply(_ status: Int, errors: [(file: String?, path: String, line: Int?, message: String)],
                              headers: [(String, String)] = []) -> HTTPReply {
        var json = JSONWriter()
        json.beginObject()
        json.key("errors")
        json.beginArray()
        for error in errors {
            json.beginObject()
            json.key("file"); json.optionalString(error.file)
            json.key("path"); json.string(error.path)
            json.key("line")
            if let line = error.line { json.integer(line) } else { json.null() }
            json.key("message"); json.string(error.message)
            json.endObject()
        }
        json.endArray()
        json.endObject()
        return HTTPReply(status: status, contentType: "application/json", body: json.bytes + [10], headers: headers)
    }
}
