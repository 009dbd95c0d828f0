// `make bench-durability`'s store figures. First what logging costs: 500 small rooms logging
// inputs and frames at the drag load's rate, store CPU per logged entry (`LoggingCost`). Then the
// restore figure: how long the first join of a room with a long
// history waits for its state. A room with 100,000 logged inputs (a day of steady driving) is
// written to a fresh SQLite file, the store is reopened, and `loadRoom` is timed over many
// reopenings (median and 99th percentile), which is what a restart costs that room's first
// viewer. The last line is the headline `restore_ms_100k_inputs=N`.
import Dispatch
import Foundation
import ScrollEngine
import ScrollcastRooms
import ScrollcastServerTesting
import ScrollcastStore

let inputs = 100_000
let reopenings = 101
let directory = FileManager.default.temporaryDirectory.appendingPathComponent("scrollcast-bench-store-\(getpid())")
try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
defer { try? FileManager.default.removeItem(at: directory) }
let path = directory.appendingPathComponent("rooms.sqlite").path
let scheduler = ManualScheduler(clock: ManualRoomClock())

// The store belongs to the room actor; the bench runs there and waits.
@RoomActor func openStore() throws -> SQLiteRoomStore {
    SQLiteRoomStore(database: try RoomDatabase.open(atPath: path), scheduler: scheduler)
}

@RoomActor func measure() throws -> (writeSeconds: Double, samples: [Double]) {
    let writeStarted = DispatchTime.now().uptimeNanoseconds
    let store = try openStore()
    let order = DemoScene.configuration().rowOrder
    store.roomCreated(RoomSettings(name: "week", sceneName: "demo", driverKeyDigest: nil))
    var moved = order
    moved[0].swapAt(0, 1)
    store.commitRowMove(RowMoveRecord(room: "week", rowID: moved[0][0], from: IndexPath(section: 0, row: 1),
                                      to: IndexPath(section: 0, row: 0), viewer: "v1", rowMoveVersion: 1, rowOrder: moved)) { _ in }
    var time = 0.0
    for index in 0..<inputs {
        time += 16.7
        let kind: InputKind = index % 2 == 0 ? .pointerMoved(Point(x: 120, y: Double(200 + index % 500))) : .wheel(dx: 0, dy: 4, mode: .pixel)
        store.append(.input(viewer: "v1", event: InputEvent(id: UInt64(index + 1), time: time, kind: kind)), toRoom: "week")
        if index % 10 == 0 { store.append(.frame(sequence: UInt64(index / 10 + 1), time: time), toRoom: "week") }
    }
    store.checkpoint(RoomCheckpoint(room: "week", restingOffset: 12_345))
    store.roomEvicted(named: "week")
    store.close()
    let writeSeconds = Double(DispatchTime.now().uptimeNanoseconds - writeStarted) / 1e9

    var samples: [Double] = []
    for _ in 0..<reopenings {
        let reopened = try openStore()
        let started = DispatchTime.now().uptimeNanoseconds
        guard let room = try reopened.loadRoom(named: "week"), room.rowOrder == moved, room.restingOffset == 12_345 else {
            fatalError("the room did not come back as written")
        }
        samples.append(Double(DispatchTime.now().uptimeNanoseconds - started) / 1e6)
        reopened.database.close()
    }
    return (writeSeconds, samples)
}
let logging = try RoomActor.runAndWait {
    try LoggingCost().run(path: directory.appendingPathComponent("logging.sqlite").path)
}
print(String(format: "logging: %d entries into 500 rooms in %.2f s, %d batches (%.0f entries each), file %.1f MiB: store CPU %.2f s = %.2f us per entry (%.0f %% of a core)",
             logging.entries, logging.wallSeconds, logging.batches, Double(logging.entries) / Double(max(logging.batches, 1)),
             Double(logging.fileBytes) / 1_048_576, logging.storeCPUSeconds, logging.microsecondsPerEntry,
             logging.storeCPUSeconds / logging.wallSeconds * 100))
let (writeSeconds, measured) = try RoomActor.runAndWait { try measure() }
var samples = measured
samples.sort()
let size = (try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0
print(String(format: "wrote %d inputs and %d frames in %.2f s (file %.1f MiB)", inputs, inputs / 10, writeSeconds,
             Double(size) / 1_048_576))
print(String(format: "restore (loadRoom after reopening, %d times): median %.3f ms, p99 %.3f ms, max %.3f ms",
             reopenings, samples[samples.count / 2], samples[samples.count * 99 / 100], samples.last!))
print(String(format: "restore_ms_100k_inputs=%.3f", samples[samples.count / 2]))
