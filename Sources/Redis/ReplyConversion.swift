internal import CHiredis

extension RedisValue {
    /// Copies a hiredis reply tree into Swift values; the caller still frees the reply (once, at
    /// the top: freeReplyObject frees the elements with it).
    init(reply: UnsafePointer<redisReply>) {
        let reply = reply.pointee
        switch reply.type {
        case REDIS_REPLY_STRING:
            self = .string(Self.bytes(reply.str, reply.len))
        case REDIS_REPLY_STATUS:
            self = .status(String(decoding: Self.bytes(reply.str, reply.len), as: UTF8.self))
        case REDIS_REPLY_ERROR:
            self = .error(String(decoding: Self.bytes(reply.str, reply.len), as: UTF8.self))
        case REDIS_REPLY_INTEGER:
            self = .integer(Int64(reply.integer))
        case REDIS_REPLY_NIL:
            self = .null
        case REDIS_REPLY_ARRAY:
            var elements: [RedisValue] = []
            elements.reserveCapacity(reply.elements)
            for index in 0..<reply.elements {
                if let element = reply.element?[index] {
                    elements.append(RedisValue(reply: element))
                } else {
                    elements.append(.null)
                }
            }
            self = .array(elements)
        default:
            // hiredis 0.14 speaks RESP2 only, so this would mean a newer library under us.
            self = .error("unsupported hiredis reply type \(reply.type)")
        }
    }

    private static func bytes(_ pointer: UnsafeMutablePointer<CChar>?, _ count: Int) -> [UInt8] {
        guard let pointer, count > 0 else { return [] }
        return Array(UnsafeRawBufferPointer(start: pointer, count: count))
    }
}
