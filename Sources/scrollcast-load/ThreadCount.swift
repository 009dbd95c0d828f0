#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// How many client threads a run uses when `--threads` is not given.
enum ThreadCount {
    /// More threads than this rarely pay: the server under test needs cores too.
    static let defaultCap = 8
    /// The most `--threads` accepts (each thread is a libwebsockets context with its own poll set).
    static let maximum = 64

    /// Processors online now (at least 1).
    static var onlineProcessors: Int { max(1, sysconf(Int32(_SC_NPROCESSORS_ONLN))) }

    /// Half the online processors, at most `defaultCap`, and no more than there are rooms (a room
    /// never spans two threads). Half, because a load test often runs beside the server: on 2
    /// cores, a second client thread took the CPU the server needed (bench/where-the-time-goes.md
    /// §1), so one machine's test should leave the server its share.
    static func defaultThreads(rooms: Int) -> Int {
        max(1, min(onlineProcessors / 2, defaultCap, rooms))
    }
}
