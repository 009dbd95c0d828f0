import ScrollcastCluster
import ScrollcastRooms

/// One node's connection to an `InMemoryBroker`: the `ClusterBackend` of Swift tests, on the
/// manual scheduler. While the broker is down every command fails and nothing is delivered;
/// when it comes back the node's subscriptions are made again and confirmed, as Redis's are.
package final class InMemoryClusterBackend: ClusterBackend {
    private unowned let broker: InMemoryBroker
    package let nodeID: String
    private weak var events: (any ClusterBackendEvents)?
    /// Rooms whose channel this node subscribed to (kept across an outage, as the subscriber
    /// asks for them again).
    package private(set) var subscriptions: Set<String> = []
    package private(set) var isStarted = false
    /// False once the node was killed: nothing reaches it, nothing it sends arrives.
    package var isAlive = true
    private var subscriberDown = false
    /// While frozen (`freeze`), what reaches the node and what it sends wait here, in order.
    private var frozen = false
    private var unread: [() -> Void] = []
    private var unsent: [() -> Void] = []

    init(broker: InMemoryBroker, nodeID: String) {
        self.broker = broker
        self.nodeID = nodeID
    }

    package func start(nodeID: String, events: any ClusterBackendEvents) {
        self.events = events
        isStarted = true
        guard broker.isUp else { return }
        arrive { [weak self] in
            self?.events?.backendCommandLink(down: nil)
            self?.events?.backendSubscriberLink(down: nil)
        }
    }

    package func close() { isAlive = false }

    package var isConnected: Bool { broker.isUp && isAlive }

    // MARK: A frozen process

    /// The node's process stops (SIGSTOP) with its connections open: the broker still counts
    /// it alive (its lease is waited out by its TTL), and from now on what reaches it (replies
    /// the broker already answered included) waits unread, and what it sends waits unsent.
    /// Its timers still run on the shared manual scheduler: they stand for the ones that fire
    /// at once after a thaw.
    package func freeze() {
        frozen = true
    }

    /// The process runs again (SIGCONT): it reads what waited for it, in order, then what it
    /// sent meanwhile goes out.
    package func thaw() {
        frozen = false
        let read = unread
        let sent = unsent
        unread = []
        unsent = []
        for work in read { broker.later(work) }
        for command in sent { command() }
    }

    /// Runs `work` on the node later, as a reply or message reaches it; kept while it is frozen.
    private func arrive(_ work: @escaping () -> Void) {
        broker.later { [weak self] in
            guard let self else { return }
            if frozen { unread.append(work) } else { work() }
        }
    }

    /// Sends `command` to the broker now, or at the thaw while frozen.
    private func sendOut(_ command: @escaping () -> Void) {
        if frozen { unsent.append(command) } else { command() }
    }

    // MARK: ClusterBackend

    /// Runs `command` in the broker and hands its outcome back later; fails while it is down.
    private func roundTrip<T>(_ command: @escaping () -> T, reply: @escaping (Result<T, ClusterBackendError>) -> Void) {
        sendOut { [self] in
            guard isAlive else { return }
            guard broker.isUp else {
                return arrive { reply(.failure(ClusterBackendError("the broker is down"))) }
            }
            let outcome = command()
            arrive { [weak self] in
                guard self?.isAlive == true else { return }
                reply(.success(outcome))
            }
        }
    }

    package func claim(room: String, node: String, leaseMilliseconds: Double,
                       reply: @escaping (Result<ClaimOutcome, ClusterBackendError>) -> Void) {
        roundTrip({ [broker] in broker.claim(room: room, node: node, leaseMilliseconds: leaseMilliseconds) }, reply: reply)
    }

    package func renew(_ lease: RoomLease, leaseMilliseconds: Double,
                       reply: @escaping (Result<RenewOutcome, ClusterBackendError>) -> Void) {
        roundTrip({ [broker] in broker.renew(lease, leaseMilliseconds: leaseMilliseconds) }, reply: reply)
    }

    package func release(_ lease: RoomLease) {
        roundTrip({ [broker] in broker.release(lease) }, reply: { _ in })
    }

    package func publish(_ payload: [UInt8], frameSequence: UInt64?, under lease: RoomLease,
                         reply: @escaping (Result<WriteOutcome, ClusterBackendError>) -> Void) {
        roundTrip({ [broker] in broker.publish(payload, frameSequence: frameSequence, under: lease) }, reply: reply)
    }

    package func send(_ payload: [UInt8], toNode node: String) {
        roundTrip({ [broker] in broker.send(payload, toNode: node) }, reply: { _ in })
    }

    package func subscribe(room: String) -> Bool {
        guard !subscriptions.contains(room) else { return broker.isUp }
        subscriptions.insert(room)
        if broker.isUp, isAlive { arrive { [weak self] in self?.events?.backendSubscribed(room: room) } }
        return false
    }

    package func unsubscribe(room: String) {
        subscriptions.remove(room)
    }

    package func load(room: String, reply: @escaping (Result<[String: String], ClusterBackendError>) -> Void) {
        roundTrip({ [broker] in broker.rooms[room] ?? [:] }, reply: reply)
    }

    package func write(_ write: StoreWrite, under lease: RoomLease,
                       reply: @escaping (Result<WriteOutcome, ClusterBackendError>) -> Void) {
        roundTrip({ [broker] in broker.write(write, under: lease) }, reply: reply)
    }

    // MARK: From the broker

    func deliver(_ payload: [UInt8], room: String) {
        arrive { [weak self] in
            guard let self, isAlive, broker.isUp, !subscriberDown, subscriptions.contains(room) else { return }
            events?.backendReceived(payload, room: room)
        }
    }

    func deliver(nodeMessage payload: [UInt8]) {
        arrive { [weak self] in
            guard let self, isAlive, broker.isUp, !subscriberDown else { return }
            events?.backendReceived(nodeMessage: payload)
        }
    }

    /// Only this node's pub/sub link drops (messages meanwhile are lost to it).
    package func dropSubscriber() {
        subscriberDown = true
        arrive { [weak self] in self?.events?.backendSubscriberLink(down: "the pub/sub link dropped") }
    }

    /// This node's pub/sub link is back: its subscriptions are confirmed again.
    package func restoreSubscriber() {
        subscriberDown = false
        arrive { [weak self] in
            guard let self else { return }
            for room in subscriptions.sorted() { events?.backendSubscribed(room: room) }
            events?.backendSubscriberLink(down: nil)
        }
    }

    func linkWentDown() {
        arrive { [weak self] in
            self?.events?.backendCommandLink(down: "the broker went down")
            self?.events?.backendSubscriberLink(down: "the broker went down")
        }
    }

    func linkCameUp() {
        arrive { [weak self] in
            guard let self else { return }
            events?.backendCommandLink(down: nil)
            for room in subscriptions.sorted() { events?.backendSubscribed(room: room) }
            events?.backendSubscriberLink(down: nil)
        }
    }
}
