import Foundation
import Redis
import TestSupport
import RedisTesting
import Testing

@Suite(.serialized) struct SubscriberTests {
    @Test func receivesTwoChannelsAndUnsubscribeStopsOne() throws {
        let server = try RedisTestServer()
        let (queue, _) = try connectedQueue(server)
        defer { queue.close() }
        let (subscriber, messages, _) = try connectedSubscriber(server, channels: ["room:a", "room:b"])
        defer { subscriber.close() }
        #expect(subscriber.isConnected)
        #expect(subscriber.subscribedChannels == ["room:a", "room:b"])

        #expect(try queue.value(["PUBLISH", "room:a", "one"]) == .integer(1))
        #expect(try queue.value(["PUBLISH", "room:b", "two"]) == .integer(1))
        #expect(messages.wait { $0.count >= 2 })
        #expect(messages.all == [Message("room:a", "one"), Message("room:b", "two")])

        subscriber.unsubscribe("room:b")
        // Published on one connection, so Redis delivers them in this order: once "four" is in,
        // "three" would have been too.
        _ = try queue.value(["PUBLISH", "room:b", "three"])
        _ = try queue.value(["PUBLISH", "room:a", "four"])
        #expect(messages.wait { $0.count >= 3 })
        #expect(messages.all == [Message("room:a", "one"), Message("room:b", "two"), Message("room:a", "four")])
        #expect(waitUntil { subscriber.subscribedChannels == ["room:a"] })
        #expect(try queue.value(["PUBSUB", "NUMSUB", "room:b"]).array?.last == .integer(0))
    }

    @Test func subscribeAfterStartTakesEffect() throws {
        let server = try RedisTestServer()
        let (queue, _) = try connectedQueue(server)
        defer { queue.close() }
        let (subscriber, messages, _) = try connectedSubscriber(server, channels: [])
        defer { subscriber.close() }

        subscriber.subscribe("late")
        #expect(waitUntil { subscriber.subscribedChannels == ["late"] })
        _ = try queue.value(["PUBLISH", "late", "hello"])
        #expect(messages.wait { $0.count >= 1 })
        #expect(messages.all == [Message("late", "hello")])
    }

    @Test func binaryPayloadWithNulBytesArrivesWhole() throws {
        let server = try RedisTestServer()
        let (queue, _) = try connectedQueue(server)
        defer { queue.close() }
        let (subscriber, messages, _) = try connectedSubscriber(server, channels: ["bin"])
        defer { subscriber.close() }

        let payload: [UInt8] = [0, 0, 7, 0, 255, 0x0D, 0x0A, 0] + Array(repeating: 0, count: 100_000) + [1]
        let published = try queue.value(bytes: [Array("PUBLISH".utf8), Array("bin".utf8), payload])
        #expect(published == .integer(1))
        #expect(messages.wait { $0.count >= 1 })
        #expect(messages.all.first?.channel == "bin")
        #expect(messages.all.first?.payload == payload)
    }

    @Test func closeReportsDisconnectedAndIsIdempotent() throws {
        let server = try RedisTestServer()
        let (subscriber, _, states) = try connectedSubscriber(server, channels: ["x"])
        subscriber.close()
        subscriber.close()
        #expect(states.all == [.connected, .disconnected(reason: "closed")])
        #expect(!subscriber.isConnected)
        #expect(subscriber.subscribedChannels.isEmpty)
    }
}
