import ScrollWire

/// What a room knows of its viewers' sharing (docs/protocol.md, "Sharing"): the open requests
/// to drive, the grants, who explores, and each viewer's allowance of requests. A plain value:
/// times are room milliseconds passed in, and `Room+Sharing.swift` tells the viewers.
struct RoomSharing {
    /// How long a request stays open unanswered, ms (`ServerLimits.driveRequestMilliseconds`).
    var requestLifetime = 30_000.0
    /// Requests a viewer may make at once…
    static let askBurst = 2.0
    /// …and one more every 10 s after that.
    static let asksPerSecond = 0.1
    /// How long a grant outlives its viewer's connection, for that viewer's resume, ms.
    static let grantAfterLeaving = 60_000.0
    /// Grants kept for viewers that left (the oldest go first beyond this).
    static let maxLeftGrants = 256

    /// An open request to drive.
    struct Request: Equatable {
        /// The viewer asking.
        var viewer: String
        /// Room time (ms) it lapses at.
        var expiresAt: Double
    }

    /// Open requests, oldest first.
    private(set) var requests: [Request] = []
    /// Viewers here that may drive by a grant, in the order they were granted, with the grant
    /// each resume must present.
    private var grants: [(viewer: String, token: String)] = []
    /// Grants of viewers that left, kept for their resume until `grantAfterLeaving` has passed.
    private var leftGrants: [(token: String, leftAt: Double)] = []
    /// Resumes that presented the grant of a viewer still here, by that viewer: the grant passes
    /// to the resume when the viewer leaves (in a cluster its node may report that after the
    /// resume's node reports the resume). At most one per viewer with a grant.
    private var resumesWaiting: [String: String] = [:]
    /// Viewers that explore.
    private(set) var exploring: Set<String> = []
    private var askAllowance: [String: TokenBucket] = [:]

    /// Room time (ms) of the next request to lapse.
    var nextExpiry: Double? { requests.map(\.expiresAt).min() }
    /// Viewers here with a grant, in the order granted (presence's `granted`).
    var granted: [String] { grants.map(\.viewer) }
    /// Whether nobody explores and nobody holds a grant: presence then says nothing of sharing.
    var isQuiet: Bool { exploring.isEmpty && grants.isEmpty }

    func hasGrant(_ viewer: String) -> Bool { grants.contains { $0.viewer == viewer } }
    func explores(_ viewer: String) -> Bool { exploring.contains(viewer) }
    func request(of viewer: String) -> Request? { requests.first { $0.viewer == viewer } }

    /// Spends one of `viewer`'s requests at `now`; false when it has none left.
    mutating func takeAsk(by viewer: String, now: Double) -> Bool {
        var allowance = askAllowance[viewer] ?? TokenBucket(capacity: Self.askBurst, ratePerSecond: Self.asksPerSecond, now: now)
        let allowed = allowance.take(now: now)
        askAllowance[viewer] = allowance
        return allowed
    }

    /// Opens `viewer`'s request at `now`.
    mutating func open(by viewer: String, now: Double) -> Request {
        let request = Request(viewer: viewer, expiresAt: now + requestLifetime)
        requests.append(request)
        return request
    }

    /// Closes `viewer`'s open request (answered); nil when it has none.
    mutating func close(of viewer: String) -> Request? {
        guard let index = requests.firstIndex(where: { $0.viewer == viewer }) else { return nil }
        return requests.remove(at: index)
    }

    /// Grants `viewer` the right to drive; returns the grant its resume may present.
    mutating func grant(_ viewer: String) -> String {
        let token = DriverKey.random().hex
        grants.append((viewer, token))
        return token
    }

    /// Closes and returns the requests lapsed at `now`.
    mutating func expire(now: Double) -> [Request] {
        let lapsed = requests.filter { $0.expiresAt <= now }
        if !lapsed.isEmpty { requests.removeAll { $0.expiresAt <= now } }
        return lapsed
    }

    /// `viewer` left at `now`: its request (returned, if open) closes, it no longer explores,
    /// and its grant waits `grantAfterLeaving` for its resume.
    mutating func left(_ viewer: String, now: Double) -> Request? {
        exploring.remove(viewer)
        askAllowance[viewer] = nil
        resumesWaiting = resumesWaiting.filter { $0.value != viewer }
        if let index = grants.firstIndex(where: { $0.viewer == viewer }) {
            let token = grants.remove(at: index).token
            if let resume = resumesWaiting.removeValue(forKey: viewer) {
                grants.append((resume, token))
            } else {
                leftGrants.append((token, now))
                if leftGrants.count > Self.maxLeftGrants { leftGrants.removeFirst() }
            }
        }
        return close(of: viewer)
    }

    /// Gives `viewer` (a resume) the grant `token` of a viewer that left less than
    /// `grantAfterLeaving` ago; false when there is none. The grant of a viewer still here
    /// waits for that viewer to leave (`resumesWaiting`): a second connection presenting it
    /// while the first stays gets nothing.
    mutating func resume(_ token: String?, for viewer: String, now: Double) -> Bool {
        leftGrants.removeAll { now - $0.leftAt > Self.grantAfterLeaving }
        guard let token else { return false }
        let presented = Array(token.utf8)
        func matches(_ held: String) -> Bool { DriverKey.constantTimeEquals(Array(held.utf8), presented) }
        if let index = grants.firstIndex(where: { matches($0.token) }) {
            if grants[index].viewer != viewer { resumesWaiting[grants[index].viewer] = viewer }
            return false
        }
        guard let index = leftGrants.firstIndex(where: { matches($0.token) }) else { return false }
        leftGrants.remove(at: index)
        grants.append((viewer, token))
        return true
    }

    /// `viewer` follows or explores now; false when it already did.
    mutating func set(_ mode: ViewMode, of viewer: String) -> Bool {
        switch mode {
        case .explore: return exploring.insert(viewer).inserted
        case .follow: return exploring.remove(viewer) != nil
        }
    }
}
