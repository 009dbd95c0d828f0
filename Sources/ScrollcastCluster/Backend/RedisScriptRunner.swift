import Redis
import ScrollcastRooms

/// Runs the cluster's Lua scripts by `EVALSHA`, so a frame's publish sends a 40-byte digest
/// rather than the script. Redis names a script by the SHA-1 its `SCRIPT LOAD` returns; a
/// script Redis does not have (never loaded on this server, or dropped by `SCRIPT FLUSH` or a
/// restart) answers `NOSCRIPT`, and the call is sent again as `EVAL`, which runs it and caches it.
///
/// Order is kept: calls are answered in the order they were made, and once a `NOSCRIPT` comes
/// back, new calls wait here until every digest call already sent has been answered (those that
/// failed are sent again as `EVAL` in their order), then go out after a fresh `SCRIPT LOAD`.
/// Everything here runs on the room thread; `send`'s reply must come back there.
@RoomActor final class RedisScriptRunner {
    typealias Reply = (Result<RedisValue, RedisError>) -> Void
    /// Sends one command on the command connection; the reply comes back on the room thread.
    typealias Send = (_ command: [[UInt8]], _ reply: @escaping Reply) -> Void

    private struct Call {
        let script: String
        let tail: [[UInt8]]
        let reply: Reply
    }

    private let send: Send
    /// Digest of each script Redis told us (by `SCRIPT LOAD`); forgotten after a `NOSCRIPT`.
    private var digests: [String: [UInt8]] = [:]
    /// Every script run so far, to load again on a new connection.
    private var known: Set<String> = []
    private var loading: Set<String> = []
    private var digestCallsInFlight = 0
    private var recovering = false
    private var held: [Call] = []
    /// Calls answered `NOSCRIPT` and sent again as `EVAL` (for tests and logs).
    private(set) var fallbacks = 0

    /// Told once per `NOSCRIPT` episode (for the node's log).
    private let onLostScripts: () -> Void

    init(onLostScripts: @escaping () -> Void = {}, send: @escaping Send) {
        self.onLostScripts = onLostScripts
        self.send = send
    }

    /// Runs `script` with `keys` and `arguments`; `reply` gets its answer.
    func run(_ script: String, keys: [String], arguments: [[UInt8]], reply: @escaping Reply) {
        let call = Call(script: script, tail: [Array(String(keys.count).utf8)] + keys.map { Array($0.utf8) } + arguments,
                        reply: reply)
        if recovering { return held.append(call) }
        dispatch(call)
    }

    /// A new command connection: Redis may have restarted, so every script is loaded again.
    func connected() {
        for script in known { load(script) }
    }

    private func dispatch(_ call: Call) {
        known.insert(call.script)
        guard let digest = digests[call.script] else {
            load(call.script)
            return send([Array("EVAL".utf8), Array(call.script.utf8)] + call.tail, call.reply)
        }
        digestCallsInFlight += 1
        send([Array("EVALSHA".utf8), digest] + call.tail) { [self] result in
            digestCallsInFlight -= 1
            if case .success(.error(let message)) = result, message.hasPrefix("NOSCRIPT") {
                fallbacks += 1
                if !recovering { onLostScripts() }
                recovering = true
                digests = [:]
                send([Array("EVAL".utf8), Array(call.script.utf8)] + call.tail, call.reply)
            } else {
                call.reply(result)
            }
            if recovering, digestCallsInFlight == 0 { recovered() }
        }
    }

    /// Every digest call sent before the `NOSCRIPT` is answered: load the scripts again and send
    /// what waited, in order.
    private func recovered() {
        recovering = false
        for script in known { load(script) }
        let waiting = held
        held = []
        for call in waiting { dispatch(call) }
    }

    private func load(_ script: String) {
        guard !loading.contains(script) else { return }
        loading.insert(script)
        send([Array("SCRIPT".utf8), Array("LOAD".utf8), Array(script.utf8)]) { [self] result in
            loading.remove(script)
            if case .success(.string(let digest)) = result, !recovering { digests[script] = digest }
        }
    }
}
