import Dispatch
import Synchronization

/// The thread the room actor's jobs run on: the transport's service thread in production, the
/// test's own thread in tests.
public protocol RoomThread: AnyObject, Sendable {
    /// Hands `job` to the thread and wakes it; callable from any thread.
    func enqueue(_ job: UnownedJob)
    /// Whether the caller runs on that thread now.
    var isCurrent: Bool { get }
}

/// The room actor's serial executor: it runs jobs wherever the installed `RoomThread` runs them.
public final class RoomExecutor: SerialExecutor {
    private let thread = Mutex<any RoomThread>(QueueRoomThread())

    /// Makes `thread` the room thread, in place of a serial queue of its own (what tests and tools
    /// use). The transport installs its service thread before it starts serving; work already
    /// queued still runs on the previous thread, so install before any room work is in flight.
    public func install(_ thread: any RoomThread) { self.thread.withLock { $0 = thread } }

    /// Makes a fresh serial queue the room thread again, once the installed thread has stopped.
    public func installOwnQueue() { install(QueueRoomThread()) }

    public func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        thread.withLock({ $0 }).enqueue(job)
    }

    public func checkIsolated() {
        precondition(thread.withLock({ $0 }).isCurrent, "not on the room thread")
    }

    /// Whether the caller runs on the room thread now.
    public var isCurrent: Bool { thread.withLock({ $0 }).isCurrent }

    public func asUnownedSerialExecutor() -> UnownedSerialExecutor { UnownedSerialExecutor(ordinary: self) }
}

/// The room layer's isolation domain: rooms, viewers, timers and links live on it.
@globalActor public actor RoomActor {
    public static let shared = RoomActor()
    public static let executor = RoomExecutor()
    public nonisolated var unownedExecutor: UnownedSerialExecutor { Self.executor.asUnownedSerialExecutor() }
}

extension RoomActor {
    /// Runs `operation` on the room actor synchronously, from code that the room thread runs but
    /// the compiler cannot see is isolated (a transport callback, a scheduler's job); traps if
    /// the caller is not on the room thread.
    public static func assumeIsolated<T>(_ operation: @RoomActor () throws -> T) rethrows -> T {
        typealias Isolated = @RoomActor () throws -> T
        typealias Plain = () throws -> T
        shared.preconditionIsolated()
        return try withoutActuallyEscaping(operation) { (operation: @escaping Isolated) throws -> T in
            try unsafeBitCast(operation, to: Plain.self)()
        }
    }
}

extension RoomActor {
    /// Runs `operation` on the room actor and waits for it: for a synchronous caller that is not
    /// the room thread (a command's `run`, a tool's top-level code). Never call it on the room
    /// thread, which would wait for itself.
    public static func runAndWait<T: Sendable>(_ operation: @escaping @RoomActor @Sendable () throws -> T) throws -> T {
        precondition(!executor.isCurrent, "RoomActor.runAndWait would wait for itself on the room thread")
        let done = DispatchSemaphore(value: 0)
        let outcome = Mutex<Result<T, any Error>?>(nil)
        Task { @RoomActor in
            let result = Result { try operation() }
            outcome.withLock { $0 = result }
            done.signal()
        }
        done.wait()
        return try outcome.withLock { $0! }.get()
    }
}

/// The room thread until a transport installs its own: one serial queue.
private final class QueueRoomThread: RoomThread {
    private let queue = DispatchQueue(label: "scrollcast.room")
    private let key = DispatchSpecificKey<Bool>()

    init() { queue.setSpecific(key: key, value: true) }

    func enqueue(_ job: UnownedJob) {
        queue.async { job.runSynchronously(on: RoomActor.executor.asUnownedSerialExecutor()) }
    }

    var isCurrent: Bool { DispatchQueue.getSpecific(key: key) == true }
}

/// A value of the room actor carried through other threads untouched, as NIO's `NIOLoopBound`
/// carries one of an event loop: made on the actor and read only there. The compiler checks
/// both ends (`init` and `value` are isolated to the actor), so no other thread can touch the
/// value, which is why the box may be `@unchecked Sendable`.
public struct RoomBound<Value>: @unchecked Sendable {
    private let stored: Value

    /// Boxes `value`, on the room actor.
    @RoomActor public init(_ value: Value) { stored = value }

    /// The value, on the room actor.
    @RoomActor public var value: Value { stored }
}
