/// The names of a cluster's Redis keys and channels (docs/cluster.md lists them).
struct ClusterKeys: Sendable {
    let prefix: String

    /// The lease: "NODE|EPOCH", with a TTL.
    func lease(_ room: String) -> String { "\(prefix)room:\(room):lease" }
    /// The room's epoch counter (INCR per new owner; never expires).
    func epoch(_ room: String) -> String { "\(prefix)room:\(room):epoch" }
    /// The room's durable state: a hash of scene, key, order, version, rest, seq.
    func state(_ room: String) -> String { "\(prefix)room:\(room)" }
    /// The room's log: a list of recording lines (docs/recording.md), newest last.
    func log(_ room: String) -> String { "\(prefix)room:\(room):log" }
    /// Where a room's owner publishes what its viewers on other nodes get.
    func roomChannel(_ room: String) -> String { "\(prefix)room:\(room)" }
    /// Where other nodes send a node rosters and inputs for the rooms it runs.
    func nodeChannel(_ node: String) -> String { "\(prefix)node:\(node)" }
    /// The start of every node channel's name (the scripts add the node id).
    var nodeChannelPrefix: String { "\(prefix)node:" }

    /// A lease's value.
    static func leaseValue(node: String, epoch: UInt64) -> String { "\(node)|\(epoch)" }

    /// The node and epoch of a lease's value, if it is one.
    static func parseLease(_ value: String) -> (node: String, epoch: UInt64)? {
        guard let bar = value.lastIndex(of: "|"), let epoch = UInt64(value[value.index(after: bar)...]) else { return nil }
        return (String(value[..<bar]), epoch)
    }
}
