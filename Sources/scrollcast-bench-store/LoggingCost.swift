import Dispatch
import Foundation
import ScrollEngine
import ScrollcastRooms
import ScrollcastServerTesting
import ScrollcastStore

/// What logging costs the store: many small rooms logging at the rate the drag load makes them
/// log (500 rooms × (1 viewer + 1 driver): ~24,400 inputs/s and ~30,000 frames/s), fed through
/// `SQLiteRoomStore` with its real batching (5 ms or 1,024 operations) into a fresh file. The
/// feeder only queues; everything else the process spends — the writer's SQLite work, its
/// commits and checkpoints — is the store's, so store CPU = process CPU − the feeder thread's.
struct LoggingCost {
    var rooms = 500
    var inputsPerSecond = 24_400.0
    var framesPerSecond = 30_000.0
    var seconds = 6.0

    struct Figures {
        var entries: Int
        var storeCPUSeconds: Double
        var wallSeconds: Double
        var batches: Int
        var fileBytes: Int
        var microsecondsPerEntry: Double { storeCPUSeconds / Double(max(entries, 1)) * 1e6 }
    }

    /// Runs on the room actor (the store's thread) and returns once everything is written.
    @RoomActor func run(path: String) throws -> Figures {
        let store = SQLiteRoomStore(database: try RoomDatabase.open(atPath: path),
                                    scheduler: ManualScheduler(clock: ManualRoomClock()))
        let names = (0..<rooms).map { "room-\($0)" }
        for name in names { store.roomCreated(RoomSettings(name: name, sceneName: "demo", driverKeyDigest: nil)) }
        store.flush()

        let processStart = Self.processCPUSeconds(), feederStart = Self.threadCPUSeconds()
        let started = DispatchTime.now().uptimeNanoseconds
        var inputs = 0, frames = 0
        var elapsed = 0.0
        while elapsed < seconds {
            elapsed = Double(DispatchTime.now().uptimeNanoseconds - started) / 1e9
            // Inputs and frames go to the rooms in turn, as many as are due by now.
            while Double(inputs) < inputsPerSecond * min(elapsed, seconds) {
                let room = inputs % rooms, count = inputs / rooms
                let event = InputEvent(id: UInt64(count + 1), time: Double(count) * 20.5,
                                       kind: .pointerMoved(Point(x: 120.5, y: Double(200 + count % 400) + 0.25)))
                store.append(.input(viewer: "viewer-\(room)", event: event), toRoom: names[room])
                inputs += 1
            }
            while Double(frames) < framesPerSecond * min(elapsed, seconds) {
                let room = frames % rooms, count = frames / rooms
                store.append(.frame(sequence: UInt64(count + 1), time: Double(count) * 16.67), toRoom: names[room])
                frames += 1
            }
            usleep(500)
        }
        let feederCPU = Self.threadCPUSeconds() - feederStart
        store.flush()
        let wall = Double(DispatchTime.now().uptimeNanoseconds - started) / 1e9
        let storeCPU = Self.processCPUSeconds() - processStart - feederCPU
        let batches = store.batchCount
        store.close()
        let size = (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0
        return Figures(entries: inputs + frames, storeCPUSeconds: storeCPU, wallSeconds: wall, batches: batches, fileBytes: size)
    }

    private static func processCPUSeconds() -> Double {
        var usage = rusage()
        getrusage(__rusage_who_t(RUSAGE_SELF.rawValue), &usage)
        return seconds(usage.ru_utime) + seconds(usage.ru_stime)
    }

    private static func threadCPUSeconds() -> Double {
        var time = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &time)
        return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
    }

    private static func seconds(_ time: timeval) -> Double {
        Double(time.tv_sec) + Double(time.tv_usec) / 1e6
    }
}
