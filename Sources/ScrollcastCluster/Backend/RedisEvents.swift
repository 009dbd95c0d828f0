import Redis
import ScrollcastRooms

/// What the Redis threads report, once hopped to the room thread, turned into backend events
/// (channels named back to rooms). Set up by `start`, read only on the room thread; the Redis
/// threads only capture it to hop (it is on the room actor, so that is checked).
@RoomActor final class EventsReference {
    weak var events: (any ClusterBackendEvents)?
    var keys = ClusterKeys(prefix: "")
    var nodeChannel = ""
    var onCommandsConnected: () -> Void = {}

    func received(_ payload: [UInt8], on channel: String) {
        if channel == nodeChannel {
            events?.backendReceived(nodeMessage: payload)
        } else if let room = room(ofChannel: channel) {
            events?.backendReceived(payload, room: room)
        }
    }

    func subscribed(to channel: String) {
        guard channel != nodeChannel, let room = room(ofChannel: channel) else { return }
        events?.backendSubscribed(room: room)
    }

    func commandLink(_ state: RedisLinkState) {
        switch state {
        case .connected:
            onCommandsConnected()
            events?.backendCommandLink(down: nil)
        case .disconnected(let reason):
            events?.backendCommandLink(down: "\(reason)")
        }
    }

    func subscriberLink(_ state: RedisLinkState) {
        switch state {
        case .connected: events?.backendSubscriberLink(down: nil)
        case .disconnected(let reason): events?.backendSubscriberLink(down: "\(reason)")
        }
    }

    private func room(ofChannel channel: String) -> String? {
        let prefix = keys.roomChannel("")
        guard channel.hasPrefix(prefix) else { return nil }
        return String(channel.dropFirst(prefix.count))
    }
}
