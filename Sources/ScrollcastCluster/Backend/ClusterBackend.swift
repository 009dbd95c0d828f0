import ScrollcastRooms

/// What a cluster node needs of the shared broker (docs/cluster.md, "The backend seam"): leases
/// with fencing, a publish per room, a channel per node, and the rooms' durable state. Redis
/// (`RedisClusterBackend`) is the production implementation; `InMemoryClusterBackend` (module
/// ScrollcastClusterTesting) runs a whole cluster inside one test on the manual scheduler.
///
/// Every reply and every event comes back on the room thread, never inside the call that asked
/// for it (a reply is a round trip, even in memory).
@RoomActor package protocol ClusterBackend: AnyObject {
    /// Connects, subscribes to node `nodeID`'s own channel, and from then on reports to `events`.
    func start(nodeID: String, events: any ClusterBackendEvents)
    /// Closes the connections. Thread-safe; call once the server has stopped.
    func close()
    /// Whether the command connection is up now.
    var isConnected: Bool { get }

    /// Takes room `room`'s lease for `node` if it is free or its holder's node is gone.
    func claim(room: String, node: String, leaseMilliseconds: Double,
               reply: @escaping (Result<ClaimOutcome, ClusterBackendError>) -> Void)
    /// Extends `lease` (or takes it back at the same epoch when it ran out and nobody took the room).
    func renew(_ lease: RoomLease, leaseMilliseconds: Double,
               reply: @escaping (Result<RenewOutcome, ClusterBackendError>) -> Void)
    /// Gives `lease` up, if it is still the holder's.
    func release(_ lease: RoomLease)

    /// Publishes `payload` on the room's channel under `lease` (fenced); a frame also records its seq.
    func publish(_ payload: [UInt8], frameSequence: UInt64?, under lease: RoomLease,
                 reply: @escaping (Result<WriteOutcome, ClusterBackendError>) -> Void)
    /// Sends `payload` to node `node`'s channel (rosters and inputs for the rooms it runs).
    func send(_ payload: [UInt8], toNode node: String)
    /// Subscribes to room `room`'s channel. Returns true when the subscription is already
    /// confirmed (no `subscribed` event will come for it then).
    func subscribe(room: String) -> Bool
    /// Unsubscribes from room `room`'s channel.
    func unsubscribe(room: String)

    /// The room's durable fields (empty when it has none).
    func load(room: String, reply: @escaping (Result<[String: String], ClusterBackendError>) -> Void)
    /// One fenced write of the room store under `lease`.
    func write(_ write: StoreWrite, under lease: RoomLease,
               reply: @escaping (Result<WriteOutcome, ClusterBackendError>) -> Void)
}

/// What the backend reports to its node, on the room thread.
@RoomActor package protocol ClusterBackendEvents: AnyObject {
    /// A message on this node's channel.
    func backendReceived(nodeMessage payload: [UInt8])
    /// A message on room `room`'s channel.
    func backendReceived(_ payload: [UInt8], room: String)
    /// The subscription to room `room`'s channel took effect.
    func backendSubscribed(room: String)
    /// The command connection came up (`nil`) or went down (why).
    func backendCommandLink(down reason: String?)
    /// The pub/sub connection came up (`nil`) or went down (why).
    func backendSubscriberLink(down reason: String?)
}

/// Why the backend could not answer (its connection is down, or it answered nonsense).
package struct ClusterBackendError: Error, Hashable, CustomStringConvertible {
    package var message: String
    package init(_ message: String) { self.message = message }
    package var description: String { message }
}

/// A lease's holder, as another node learns it.
package struct LeaseHolder: Hashable, Sendable {
    package var node: String
    package var epoch: UInt64

    package init(node: String, epoch: UInt64) {
        self.node = node
        self.epoch = epoch
    }
}

/// The outcome of a claim.
package enum ClaimOutcome: Hashable {
    /// This node holds the room's lease now.
    case granted(RoomLease)
    /// A live node holds it.
    case held(LeaseHolder)
}

/// The outcome of a renewal.
package enum RenewOutcome: Hashable {
    case renewed
    /// Another node holds the room now (`holder`, when the lease names one).
    case lost(holder: LeaseHolder?)
}

/// The outcome of a fenced write or publish.
package enum WriteOutcome: Hashable {
    case done
    /// The caller's lease is not the room's lease any more: it must step down.
    case fenced
    /// A row move that does not follow the stored one.
    case outOfOrder
}

/// One write of the cluster's room store; each is checked against the writer's lease.
package enum StoreWrite: Hashable {
    /// A new room: its scene and driver key digest ("" for none); clears what was stored.
    case created(room: String, scene: String, keyDigest: String)
    /// Row order `order` (RowOrderText) as move `version`, on top of move `version` − 1.
    case commitMove(room: String, rowMoveVersion: Int, order: String)
    /// Where the room rests.
    case checkpoint(room: String, restingOffset: Double)
    /// Log lines appended, keeping the newest `keep` (0 keeps none).
    case appendLog(room: String, lines: [[UInt8]], keep: Int)
}

extension RoomLease {
    /// The lease's value in the broker: "NODE|EPOCH".
    package var value: String { ClusterKeys.leaseValue(node: node, epoch: epoch) }
}
