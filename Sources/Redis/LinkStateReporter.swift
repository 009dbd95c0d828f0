/// Passes state changes to the owner's callback, dropping repeats: a reconnect loop fails once a
/// second during an outage, and the owner needs to hear "down" once, not every second.
struct LinkStateReporter {
    private let onStateChange: @Sendable (RedisLinkState) -> Void
    private var lastConnected: Bool?

    init(_ onStateChange: @escaping @Sendable (RedisLinkState) -> Void) {
        self.onStateChange = onStateChange
    }

    mutating func report(_ state: RedisLinkState) {
        let connected = state == .connected
        guard connected != lastConnected else { return }
        lastConnected = connected
        onStateChange(state)
    }
}
