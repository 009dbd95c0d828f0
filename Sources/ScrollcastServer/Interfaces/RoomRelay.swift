/// Where a room's messages go: to its viewers, wherever they are connected. The room hands each
/// message to its channel once; on one node `LocalRelay` delivers it to the sinks of the viewers
/// connected here, and a cluster relay would publish it once for every node to deliver.
public protocol RoomRelay: AnyObject {
    /// The channel of room `lease.room`, which this node runs under `lease`.
    func openChannel(for lease: RoomLease) -> RoomChannel
}

/// One room's way to its viewers. Called only on the room thread.
public protocol RoomChannel: AnyObject {
    /// Viewer `viewer` is connected here through `sink`.
    func attach(_ viewer: String, sink: ViewerSink)
    /// Viewer `viewer` left.
    func detach(_ viewer: String)
    /// Sends a message that must arrive to `audience`.
    func send(_ message: OutgoingMessage, to audience: Audience)
    /// Offers a frame to every viewer; a viewer still writing an older frame gets this one in its
    /// place.
    func sendFrame(_ message: OutgoingMessage)
    /// The room is gone; the channel delivers nothing more.
    func close()
}

/// Who a reliable message is for.
public enum Audience: Sendable, Hashable {
    /// One viewer.
    case viewer(String)
    /// Every viewer of the room.
    case everyone
    /// Every viewer but one (presence after a join: the joiner's snapshot says it already).
    case everyoneExcept(String)
}
