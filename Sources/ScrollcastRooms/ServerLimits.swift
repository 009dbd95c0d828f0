/// The limits and timings a Scrollcast server enforces.
public struct ServerLimits: Sendable, Hashable {
    /// Most open viewer connections; one more is closed with 1013.
    public var maxViewers = 10_000
    /// Most live rooms; a join that would create one more is closed with 1013.
    public var maxRooms = 1_000
    /// How long a room with no viewers lives on, ms.
    public var roomGraceMilliseconds: Double = 30_000
    /// How long a request to drive stays open unanswered, ms (docs/protocol.md, "Sharing").
    public var driveRequestMilliseconds: Double = 30_000
    /// How long a connection may stay without sending `join`, ms (then 1008).
    public var joinDeadlineMilliseconds: Double = 10_000
    /// Inputs per second a connection may send, sustained.
    public var inputsPerSecond: Double = 240
    /// Inputs a connection may send in one burst.
    public var inputBurst: Double = 120
    /// Frames per second while a room animates (1…240).
    public var framesPerSecond = 60
    /// Most `GET /recording` exports running at once; one more is answered 503 with
    /// `Retry-After: retryAfterSeconds`.
    public var maxRecordingExports = 2
    /// What a refused export's `Retry-After` says, seconds.
    public var recordingExportRetryAfterSeconds = 5

    /// The defaults of protocol v1.
    /// `POST /scenes`'s per-client rate and per-server bytes (docs/scenes.md, "Uploads").
    public var sceneUploads = SceneUploadLimits()

    public init() {}

    /// One frame period, ms (frames for input are at least half of it apart).
    public var tickMilliseconds: Double { 1000 / Double(max(1, framesPerSecond)) }
}
