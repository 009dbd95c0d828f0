/// The Lua scripts a node runs in Redis: each is one atomic step, so a lease check and the
/// write it guards cannot be split by another node's step. Every write takes the writer's lease
/// value and fails (returns -1) unless the lease still holds it: that is the fencing.
enum ClusterScripts {
    /// Claim a room. KEYS: lease, epoch. ARGV: node, lease ms, node channel prefix, settle ms.
    /// Returns {"held", node, epoch} when a live node holds it; else takes it with the next
    /// epoch and returns {"granted", node, epoch}. The holder counts as dead when its node
    /// channel has no subscriber: its process is gone (a SIGKILL closes its connections), so the
    /// room need not wait for the lease to run out. A frozen owner keeps its connection open and
    /// is waited out, and so is every holder while Redis has been up for less than `settle` ms
    /// (the nodes pass the lease length: after a Redis restart they are still subscribing again).
    static let claim = """
        local current = redis.call('GET', KEYS[1])
        if current then
          local node, epoch = string.match(current, '^(.*)|(%d+)$')
          if node and node ~= ARGV[1] then
            -- Just after a Redis restart every node is still resubscribing: wait the TTL out then.
            local uptime = tonumber(string.match(redis.call('INFO', 'server'), 'uptime_in_seconds:(%d+)'))
            if uptime * 1000 < tonumber(ARGV[4]) then return {'held', node, epoch} end
            local subscribers = redis.call('PUBSUB', 'NUMSUB', ARGV[3] .. node)[2]
            if subscribers > 0 then return {'held', node, epoch} end
          end
        end
        local epoch = redis.call('INCR', KEYS[2])
        redis.call('SET', KEYS[1], ARGV[1] .. '|' .. epoch, 'PX', ARGV[2])
        return {'granted', ARGV[1], tostring(epoch)}
        """

    /// Renew a lease. KEYS: lease, epoch. ARGV: lease value, lease ms, epoch.
    /// Returns 1 when renewed. A lease that ran out while nobody took the room (Redis was away)
    /// is taken back at the same epoch. Otherwise returns the current holder's value, or false.
    static let renew = """
        local current = redis.call('GET', KEYS[1])
        if current == ARGV[1] then redis.call('PEXPIRE', KEYS[1], ARGV[2]) return 1 end
        if not current and redis.call('GET', KEYS[2]) == ARGV[3] then
          redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
          return 1
        end
        return current
        """

    /// Give a lease up. KEYS: lease. ARGV: lease value. Deletes it only if still ours.
    static let release = """
        if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
        return 0
        """

    /// Publish for the room's viewers on other nodes. KEYS: lease, state. ARGV: lease value,
    /// channel, payload (empty: publish nothing), frame seq (empty: not a frame).
    /// Returns -1 when fenced, else the number of nodes that got it.
    static let publish = """
        if redis.call('GET', KEYS[1]) ~= ARGV[1] then return -1 end
        if ARGV[4] ~= '' then redis.call('HSET', KEYS[2], 'seq', ARGV[4]) end
        if ARGV[3] == '' then return 0 end
        return redis.call('PUBLISH', ARGV[2], ARGV[3])
        """

    /// A room was created. KEYS: lease, state, log. ARGV: lease value, scene, key digest ('' for none).
    static let created = """
        if redis.call('GET', KEYS[1]) ~= ARGV[1] then return -1 end
        redis.call('DEL', KEYS[2], KEYS[3])
        redis.call('HSET', KEYS[2], 'scene', ARGV[2], 'key', ARGV[3], 'version', '0', 'order', '')
        return 1
        """

    /// Commit a row move on top of the previous one. KEYS: lease, state. ARGV: lease value,
    /// version, order. Returns -1 when fenced, 0 when the stored version is not version − 1.
    static let commitMove = """
        if redis.call('GET', KEYS[1]) ~= ARGV[1] then return -1 end
        local stored = tonumber(redis.call('HGET', KEYS[2], 'version') or '0')
        if stored ~= tonumber(ARGV[2]) - 1 then return 0 end
        redis.call('HSET', KEYS[2], 'version', ARGV[2], 'order', ARGV[3])
        return 1
        """

    /// Note where the room rests. KEYS: lease, state. ARGV: lease value, offset.
    static let checkpoint = """
        if redis.call('GET', KEYS[1]) ~= ARGV[1] then return -1 end
        redis.call('HSET', KEYS[2], 'rest', ARGV[2])
        return 1
        """

    /// Append log lines, keeping the newest. KEYS: lease, log. ARGV: lease value, most lines, lines…
    static let appendLog = """
        if redis.call('GET', KEYS[1]) ~= ARGV[1] then return -1 end
        redis.call('RPUSH', KEYS[2], unpack(ARGV, 3))
        local keep = tonumber(ARGV[2])
        if keep < 1 then redis.call('DEL', KEYS[2]) else redis.call('LTRIM', KEYS[2], -keep, -1) end
        return 1
        """
}
