import Dispatch
import Foundation
import Synchronization
internal import CHiredisShim

/// The one thread a queue or subscriber does all its hiredis work on (a context is not
/// thread-safe), with a way to wait for it to end.
final class LinkThread: Sendable {
    private let finished = DispatchSemaphore(value: 0)
    /// Nil until started; then the thread's id, so `isCurrent` can spot a call from a callback.
    private let threadID = Mutex<pthread_t?>(nil)
    private let started = Atomic<Bool>(false)

    func start(name: String, body: @escaping @Sendable () -> Void) {
        guard !started.exchange(true, ordering: .sequentiallyConsistent) else { return }
        let thread = Thread { [self] in
            // Before any hiredis call: a write to a socket Redis closed must fail, not kill us.
            _ = schr_block_sigpipe_on_current_thread()
            schr_name_current_thread(name)
            threadID.withLock { $0 = pthread_self() }
            body()
            finished.signal()
        }
        thread.start()
    }

    /// Whether the caller is this thread (a completion or callback calling back in).
    var isCurrent: Bool {
        threadID.withLock { id in id.map { pthread_equal($0, pthread_self()) != 0 } ?? false }
    }

    /// Returns once the thread has ended, at once if it never started; any number of callers.
    func waitUntilFinished() {
        guard started.load(ordering: .sequentiallyConsistent) else { return }
        finished.wait()
        finished.signal()
    }
}
