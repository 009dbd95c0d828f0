import ScrollcastRooms

/// One node's connection to an `InMemoryBroker`: the `ClusterBackend` of Swift tests, on the
/// manual scheduler. While the broker is down every command fails and nothing is delivered;
/// when it comes back the node's subscriptions are made again and confirmed, as Redis's are.
final class InMemoryClusterBackend: ClusterBackend {
    private unowned let broker: InMemoryBroker
    let nodeID: String
    private weak var events: (any ClusterBackendEvents)?
    /// Rooms whose channel this node subscribed to (kept across an outage, as the subscriber
    /// asks for them again).
    private(set) var subscriptions: Set<String> = []
    private(set) var isStarted = false
    /// False once the node was killed: nothing reaches it, nothing it sends arrives.
    var isAlive = true
    private var subscriberDown = false

    init(broker: InMemoryBroker, nodeID: String) {
        self.broker = broker
        self.nodeID = nodeID
    }

    func start(nodeID: String, events: any ClusterBackendEvents) {
        self.events = events
        isStarted = true
        guard broker.isUp else { return }
        broker.later { [weak self] in
            self?.events?.backendCommandLink(down: nil)
            self?.events?.backendSubscriberLink(down: nil)
        }
    }

    func close() { isAlive = false }

    var isConnected: Bool { broker.isUp && isAlive }

    /// Runs `command` in the broker and hands its outcome back later; fails while it is down.
    private func roundTrip<T>(_ command: @escaping () -> T, reply: @escaping (Result<T, ClusterBackendError>) -> Void) {
        guard isAlive else { return }
        guard broker.isUp else {
            return broker.later { reply(.failure(ClusterBackendError("the broker is down"))) }
        }
        let outcome = command()
        broker.later { [weak self] in
            guard self?.isAlive == true else { return }
            reply(.success(outcome))
        }
    }

    func claim(room: String, node: String, leaseMilliseconds: Double,
               reply: @escaping (Result<ClaimOutcome, ClusterBackendError>) -> Void) {
        roundTrip({ [broker] in broker.claim(room: room, node: node, leaseMilliseconds: leaseMilliseconds) }, reply: reply)
    }

    func renew(_ lease: RoomLease, leaseMilliseconds: Double,
               reply: @escaping (Result<RenewOutcome, ClusterBackendError>) -> Void) {
        roundTrip({ [broker] in broker.renew(lease, leaseMilliseconds: leaseMilliseconds) }, reply: reply)
    }

    func release(_ lease: RoomLease) {
        roundTrip({ [broker] in broker.release(lease) }, reply: { _ in })
    }

    func publish(_ payload: [UInt8], frameSequence: UInt64?, under lease: RoomLease,
                 reply: @escaping (Result<WriteOutcome, ClusterBackendError>) -> Void) {
        roundTrip({ [broker] in broker.publish(payload, frameSequence: frameSequence, under: lease) }, reply: reply)
    }

    func send(_ payload: [UInt8], toNode node: String) {
        roundTrip({ [broker] in broker.send(payload, toNode: node) }, reply: { _ in })
    }

    func subscribe(room: String) -> Bool {
        guard !subscriptions.contains(room) else { return broker.isUp }
        subscriptions.insert(room)
        if broker.isUp, isAlive { broker.later { [weak self] in self?.events?.backendSubscribed(room: room) } }
        return false
    }

    func unsubscribe(room: String) {
        subscriptions.remove(room)
    }

    func load(room: String, reply: @escaping (Result<[String: String], ClusterBackendError>) -> Void) {
        roundTrip({ [broker] in broker.rooms[room] ?? [:] }, reply: reply)
    }

    func write(_ write: StoreWrite, under lease: RoomLease,
               reply: @escaping (Result<WriteOutcome, ClusterBackendError>) -> Void) {
        roundTrip({ [broker] in broker.write(write, under: lease) }, reply: reply)
    }

    // MARK: From the broker

    func deliver(_ payload: [UInt8], room: String) {
        broker.later { [weak self] in
            guard let self, isAlive, broker.isUp, !subscriberDown, subscriptions.contains(room) else { return }
            events?.backendReceived(payload, room: room)
        }
    }

    func deliver(nodeMessage payload: [UInt8]) {
        broker.later { [weak self] in
            guard let self, isAlive, broker.isUp, !subscriberDown else { return }
            events?.backendReceived(nodeMessage: payload)
        }
    }

    /// Only this node's pub/sub link drops (messages meanwhile are lost to it).
    func dropSubscriber() {
        subscriberDown = true
        broker.later { [weak self] in self?.events?.backendSubscriberLink(down: "the pub/sub link dropped") }
    }

    /// This node's pub/sub link is back: its subscriptions are confirmed again.
    func restoreSubscriber() {
        subscriberDown = false
        broker.later { [weak self] in
            guard let self else { return }
            for room in subscriptions.sorted() { events?.backendSubscribed(room: room) }
            events?.backendSubscriberLink(down: nil)
        }
    }

    func linkWentDown() {
        broker.later { [weak self] in
            self?.events?.backendCommandLink(down: "the broker went down")
            self?.events?.backendSubscriberLink(down: "the broker went down")
        }
    }

    func linkCameUp() {
        broker.later { [weak self] in
            guard let self else { return }
            events?.backendCommandLink(down: nil)
            for room in subscriptions.sorted() { events?.backendSubscribed(room: room) }
            events?.backendSubscriberLink(down: nil)
        }
    }
}
