/// The Scrollcast wire protocol, version 1 (subprotocol `scrollcast.v1`).
public enum ScrollWire {
    /// The WebSocket subprotocol name clients must ask for.
    public static let subprotocol = "scrollcast.v1"
}
