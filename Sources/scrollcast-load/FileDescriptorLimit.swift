#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Thousands of sockets need more descriptors than the usual soft limit of 1024.
enum FileDescriptorLimit {
    /// Raises the soft limit on open files to the hard limit (allowed without privileges).
    static func raiseToMaximum() {
        var limit = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0, limit.rlim_cur < limit.rlim_max else { return }
        limit.rlim_cur = limit.rlim_max
        _ = setrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
    }
}
