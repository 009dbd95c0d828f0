import Glibc
internal import CHiredis
internal import CHiredisShim

/// One blocking hiredis context, used by one thread only, freed exactly once (in deinit).
///
/// After any failure hiredis 0.14 keeps the context's error set and refuses all further I/O, so a
/// failed connection is dropped and replaced, never reused.
final class HiredisConnection {
    private let context: UnsafeMutablePointer<redisContext>
    /// "name (redis://host:port/db)", the prefix of every error message.
    let label: String
    private let timeoutMilliseconds: Int

    /// Connects, and sets the read/write timeout and TCP keepalive.
    /// - Throws: ``RedisError`` if the server cannot be reached within the timeout.
    static func connect(
        to address: RedisAddress, label: String, timeoutMilliseconds: Int
    ) throws(RedisError) -> HiredisConnection {
        let timeout = timeval(
            tv_sec: timeoutMilliseconds / 1000, tv_usec: (timeoutMilliseconds % 1000) * 1000)
        guard let context = redisConnectWithTimeout(address.host, Int32(address.port), timeout) else {
            throw RedisError(.resources, "cannot connect: hiredis is out of memory", link: label)
        }
        // From here deinit frees the context, on success and on every failure below.
        let connection = HiredisConnection(context, label: label, timeoutMilliseconds: timeoutMilliseconds)
        guard context.pointee.err == 0 else { throw connection.failure("cannot connect", .cannotConnect) }
        // Without a timeout a Redis that hangs (but keeps its socket open) would hang us forever.
        guard redisSetTimeout(context, timeout) == REDIS_OK else {
            throw connection.failure("cannot set the socket timeout", .cannotConnect)
        }
        guard redisEnableKeepAlive(context) == REDIS_OK else {
            throw connection.failure("cannot enable TCP keepalive", .cannotConnect)
        }
        return connection
    }

    private init(_ context: UnsafeMutablePointer<redisContext>, label: String, timeoutMilliseconds: Int) {
        self.context = context
        self.label = label
        self.timeoutMilliseconds = timeoutMilliseconds
    }

    deinit { redisFree(context) }

    /// The socket, for poll(2) and for shutdown(2) from another thread (under the owner's lock).
    var fileDescriptor: Int32 { context.pointee.fd }

    /// Adds a command to the output buffer; nothing is written yet.
    func append(_ arguments: [[UInt8]]) throws(RedisError) {
        let status = ArgumentVector.with(arguments) { argc, argv, argvlen in
            redisAppendCommandArgv(context, argc, argv, argvlen)
        }
        guard status == REDIS_OK else { throw failure("cannot queue a command") }
    }

    /// Writes whatever is buffered (blocking, up to the timeout per write), then blocks for the
    /// next reply.
    func readReply() throws(RedisError) -> RedisValue {
        var raw: UnsafeMutableRawPointer?
        guard redisGetReply(context, &raw) == REDIS_OK else { throw failure("the command failed on the link") }
        return try Self.take(raw)
    }

    /// One command, one reply: for the set-up commands after a connect.
    func command(_ arguments: [String]) throws(RedisError) -> RedisValue {
        try append(arguments.map { Array($0.utf8) })
        return try readReply()
    }

    /// Writes the whole output buffer (blocking, up to the timeout per write).
    func flush() throws(RedisError) {
        var done: Int32 = 0
        repeat {
            guard redisBufferWrite(context, &done) == REDIS_OK else { throw failure("cannot write") }
        } while done == 0
    }

    /// One read(2) into the reply parser; call only when poll(2) says the socket is readable, so
    /// it never waits for the timeout (which would leave the context in an error state).
    func readAvailable() throws(RedisError) {
        guard redisBufferRead(context) == REDIS_OK else { throw failure("cannot read") }
    }

    /// The next complete reply already read, or nil if more bytes are needed.
    func bufferedReply() throws(RedisError) -> RedisValue? {
        var raw: UnsafeMutableRawPointer?
        guard redisGetReplyFromReader(context, &raw) == REDIS_OK else {
            throw failure("unreadable reply", .protocolError)
        }
        guard raw != nil else { return nil }
        return try Self.take(raw)
    }

    /// Copies and frees a reply hiredis handed over.
    private static func take(_ raw: UnsafeMutableRawPointer?) throws(RedisError) -> RedisValue {
        guard let raw else { return .null }
        defer { freeReplyObject(raw) }
        return RedisValue(reply: raw.assumingMemoryBound(to: redisReply.self))
    }

    /// The context's error, worded for someone reading a log: a timed-out socket call reports
    /// EAGAIN, whose text ("Resource temporarily unavailable") would hide that it was a timeout.
    /// `kind`: the error's code unless it was a timeout (or hiredis ran out of memory).
    private func failure(_ what: String, _ kind: RedisError.Code = .io) -> RedisError {
        let code = context.pointee.err
        if code == REDIS_ERR_IO && (errno == EAGAIN || errno == EWOULDBLOCK) {
            return RedisError(.timeout, "\(what): timed out after \(timeoutMilliseconds) ms", link: label)
        }
        let detail = code == 0 ? "unknown hiredis error" : String(cString: schr_errstr(context))
        return RedisError(code == REDIS_ERR_OOM ? .resources : code == REDIS_ERR_PROTOCOL ? .protocolError : kind,
                          "\(what): \(detail)", link: label)
    }
}
