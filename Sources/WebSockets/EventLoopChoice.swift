import CWebSocketsShim
import Glibc

/// Which mechanism a service thread waits on. Internal: the public API always gets `.epoll`.
enum EventLoopChoice: Sendable {
    /// libev with its epoll backend: each wake-up costs in proportion to the ready sockets.
    case epoll
    /// libwebsockets' built-in `poll()` loop, which scans every socket on each wake-up.
    case lwsPoll

    /// `.epoll`, unless the environment sets `SCROLLCAST_EVENT_LOOP=poll` (for before/after
    /// measurements on one binary).
    static let processDefault: EventLoopChoice = {
        guard let value = getenv("SCROLLCAST_EVENT_LOOP") else { return .epoll }
        return String(cString: value) == "poll" ? .lwsPoll : .epoll
    }()

    var shimValue: scws_event_loop {
        switch self {
        case .epoll: SCWS_EVENT_LOOP_EPOLL
        case .lwsPoll: SCWS_EVENT_LOOP_LWS_POLL
        }
    }
}
