import SceneFiles
import Synchronization

/// The limits of `POST /scenes` (docs/scenes.md, "Uploads"), each one constant. Rows, layers,
/// texts and image sides are the scene files' own (`SceneFileLimits`): an upload is checked
/// exactly as `scrollcast scene check` checks a file.
public struct SceneUploadLimits: Sendable, Hashable {
    /// Bytes of one image: the scene files' limit.
    public static let maxImageBytes = SceneFileLimits.maxImageBytes
    /// Bytes of one upload: its scene file and every image together.
    public static let maxSceneBytes = 16 * 1024 * 1024
    /// Bytes of every upload a server keeps together (its store holds them for good).
    public static let maxServerBytes = 256 * 1024 * 1024
    /// Images in one upload: at most 16 layers and a background.
    public static let maxImages = 17
    /// Uploads a client (one IP address) may start per minute, refused or not.
    public static let uploadsPerMinute = 6
    /// The request body the transport reads at most: an upload and its form data's own headers.
    public static let maxBodyBytes = maxSceneBytes + 64 * 1024
    /// Clients whose rate is remembered; beyond, the rested ones are forgotten first.
    static let maxClientsTracked = 10_000

    /// Uploads per minute per client: `uploadsPerMinute` unless a server is told otherwise
    /// (`scrollcast --uploads-per-minute`, for a test that must reach the limit quickly).
    public var uploadsPerMinute: Int
    /// Bytes the server keeps: `maxServerBytes` unless told otherwise.
    public var maxServerBytes: Int

    public init(uploadsPerMinute: Int = Self.uploadsPerMinute, maxServerBytes: Int = Self.maxServerBytes) {
        self.uploadsPerMinute = uploadsPerMinute
        self.maxServerBytes = maxServerBytes
    }
}

/// One uploaded scene as the store keeps it: the upload itself (the scene file and the images
/// it uses, by the names they were sent under), so it is checked again, by the same code, when
/// read back.
public struct StoredSceneUpload: Sendable, Equatable {
    /// The scene's name, chosen by the server (`u-` and a digest of the upload).
    public var name: String
    /// The scene file's name as it was sent, for error messages.
    public var fileName: String
    public var scene: [UInt8]
    /// Images by the file name the scene refers to them by.
    public var images: [String: [UInt8]]

    public init(name: String, fileName: String, scene: [UInt8], images: [String: [UInt8]]) {
        self.name = name
        self.fileName = fileName
        self.scene = scene
        self.images = images
    }

    /// What it counts against the per-server limit.
    public var byteCount: Int { images.values.reduce(scene.count) { $0 + $1.count } }
}

/// Where uploaded scenes are kept for good: the room store's database (SQLite) or Redis in a
/// cluster. `save` returns once the upload is durable; it may throw `SceneUploadStoreFull` when
/// the store itself counts what it keeps (a cluster's Redis, shared by every node).
public protocol SceneUploadStore: AnyObject, Sendable {
    func saveUpload(_ upload: StoredSceneUpload) throws
    /// Every upload kept, oldest first.
    func loadUploads() throws -> [StoredSceneUpload]
}

/// A store that keeps every node's uploads (Redis in a cluster) has no room for one more: the
/// uploads it keeps and this one would be more than `limit` bytes together. Answered 507.
public struct SceneUploadStoreFull: Error, Sendable, Equatable {
    /// The bytes the store keeps at most.
    public var limit: Int
    public init(limit: Int) { self.limit = limit }
}

/// Uploads kept in this process only (`--data none`): gone at a restart.
public final class InMemorySceneUploadStore: SceneUploadStore {
    private let uploads = Mutex<[StoredSceneUpload]>([])
    public init() {}
    public func saveUpload(_ upload: StoredSceneUpload) throws { uploads.withLock { $0.append(upload) } }
    public func loadUploads() throws -> [StoredSceneUpload] { uploads.withLock { $0 } }
}
