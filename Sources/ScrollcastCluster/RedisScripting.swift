import Redis

/// How the cluster's parts reach Redis: a script run on the node's command connection, its
/// reply handed back on the room thread. The node is the one implementation.
protocol RedisScripting: AnyObject {
    /// Runs `script` with `keys` and `arguments`; `reply` runs on the room thread.
    func run(_ script: String, keys: [String], arguments: [[UInt8]],
             reply: @escaping (Result<RedisValue, RedisError>) -> Void)
    /// Whether the command connection is up now.
    var isConnected: Bool { get }
    /// The value of this node's lease on `room` ("NODE|EPOCH"), if it runs the room.
    func leaseValue(of room: String) -> String?
    /// A write under this node's lease on `room` was refused: another node holds it now.
    func fenced(room: String)
}

extension RedisScripting {
    /// `run` with text arguments.
    func run(_ script: String, keys: [String], _ arguments: [String],
             reply: @escaping (Result<RedisValue, RedisError>) -> Void) {
        run(script, keys: keys, arguments: arguments.map { Array($0.utf8) }, reply: reply)
    }
}
