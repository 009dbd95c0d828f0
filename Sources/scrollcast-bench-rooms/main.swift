// The room thread's own CPU per frame, without the network or the machine's load in the figure:
// the real room layer (hub, registry, rooms, timers, v2 encoding, the in-memory store) driven on
// a manual clock by drivers replaying the load tool's `drag` gesture, every viewer a sink that
// counts what it is handed. The thread's CPU time (not wall time) is divided by the frames
// handed to viewers, for 500 rooms × (1 viewer + 1 driver) and 10 rooms × (100 + 1): the shapes
// of `make bench-isolation`, whose server figure adds the sockets and the store's thread.
// Prints each shape, then the headline `rooms_cpu_ratio_small_to_large=N` last.
import Glibc
import Logging
import Metrics
import ScrollEngine
import ScrollWire
import ScrollcastRooms
import ScrollcastServerTesting

/// A viewer's connection that only counts: frames offered, reliable messages queued.
@RoomActor final class CountingSink: ViewerSink {
    var frames = 0
    var reliable = 0
    func sendReliable(_ message: OutgoingMessage) { reliable += 1 }
    func sendLatest(_ message: OutgoingMessage) -> Bool { frames += 1; return false }
    func close(_ reason: CloseReason) {}
}

/// One driver's inputs as the load tool's `drag` script makes them: press, a first move past the
/// slop, 30–90 moves 8–16 ms apart of 1–5 pt, a rest of 120–200 ms, release; the next gesture
/// 200–600 ms after that one ends, mostly in the same direction.
func dragScript(seed: UInt64, until end: Double) -> [(at: Double, bytes: [UInt8])] {
    var random = SeededRandom(seed: seed)
    var inputs: [(at: Double, bytes: [UInt8])] = []
    var id: UInt64 = 0
    var start = Double.random(in: 0...50, using: &random)
    var goingDown = true
    while start < end {
        if Double.random(in: 0..<1, using: &random) < 0.25 { goingDown.toggle() }
        let sign: Double = goingDown ? -1 : 1
        var point = Point(x: Double.random(in: 100...290, using: &random), y: sign < 0 ? 700 : 260)
        var time = 0.0
        func add(_ kind: InputKind) {
            id += 1
            let text = ClientMessageEncoder.input(InputMessage(id: id, clientTime: start + time, kind: kind))
            inputs.append((start + time, Array(text.utf8)))
        }
        add(.pointerDown(point))
        time += Double.random(in: 8...16, using: &random)
        point.y += sign * 14
        add(.pointerMoved(point))
        for _ in 0..<Int.random(in: 30...90, using: &random) {
            time += Double.random(in: 8...16, using: &random)
            point.y += sign * Double.random(in: 1...5, using: &random)
            add(.pointerMoved(point))
        }
        time += Double.random(in: 120...200, using: &random)
        add(.pointerUp(point))
        start += time + Double.random(in: 200...600, using: &random)
    }
    return inputs
}

func threadCPUSeconds() -> Double {
    var time = timespec()
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &time)
    return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
}

struct Figures {
    var inputs = 0
    var delivered = 0
    var roomFrames = 0
    var cpuSeconds = 0.0
    var microsecondsPerDelivered: Double { cpuSeconds * 1e6 / Double(max(delivered, 1)) }
    var microsecondsPerRoomFrame: Double { cpuSeconds * 1e6 / Double(max(roomFrames, 1)) }
}

/// `rooms` rooms of one driver and `viewers` watchers each, driven for `warmUp` then measured
/// for `measured` ms of room time.
@RoomActor func run(rooms: Int, viewers: Int, warmUp: Double = 1_000, measured: Double = 6_000) -> Figures {
    let clock = ManualRoomClock(start: 0)
    let scheduler = ManualScheduler(clock: clock)
    let metrics = ServerMetrics(factory: NOOPMetricsHandler.instance)
    var logger = Logger(label: "bench-rooms")
    logger.logLevel = .critical
    let services = RoomServices(clock: clock, wallClock: { 1_763_800_000_000 }, metrics: metrics,
                                store: InMemoryRoomStore(logLimit: 64))
    let service = RoomService(limits: ServerLimits(), services: services, scheduler: scheduler,
                              metricsExposition: { [] }, logger: logger, allowedOrigins: ["*"], host: "127.0.0.1")
    var connection: UInt64 = 0
    var sinks: [CountingSink] = []
    var drivers: [(id: ViewerID, script: [(at: Double, bytes: [UInt8])], next: Int)] = []
    for room in 0..<rooms {
        for role in 0...viewers {
            connection += 1
            let id = ViewerID(rawValue: connection)
            let sink = CountingSink()
            sinks.append(sink)
            service.opened(id, sink: sink, subprotocol: WireVersion.v2.subprotocol)
            service.receivedText(Array(#"{"type":"join","room":"bench\#(room)"}"#.utf8), from: id)
            if role == 0 { drivers.append((id, dragScript(seed: UInt64(room + 1), until: warmUp + measured + 1_000), 0)) }
        }
    }
    var figures = Figures()
    var began = 0.0, deliveredBefore = 0
    let end = warmUp + measured
    while clock.now < end {
        if began == 0, clock.now >= warmUp {
            deliveredBefore = sinks.reduce(0) { $0 + $1.frames }
            figures.inputs = 0
            began = threadCPUSeconds()
        }
        for d in drivers.indices {
            while drivers[d].next < drivers[d].script.count, drivers[d].script[drivers[d].next].at <= clock.now {
                service.receivedText(drivers[d].script[drivers[d].next].bytes, from: drivers[d].id)
                drivers[d].next += 1
                figures.inputs += 1
            }
        }
        scheduler.advance(by: 1)
    }
    figures.cpuSeconds = threadCPUSeconds() - began
    figures.delivered = sinks.reduce(0) { $0 + $1.frames } - deliveredBefore
    figures.roomFrames = figures.delivered / (viewers + 1)
    return figures
}

func report(_ name: String, _ f: Figures) {
    func fixed(_ x: Double) -> String { String(Int((x * 100).rounded())).withDecimalPoint }
    print("\(name): \(f.inputs) inputs, \(f.roomFrames) room frames, \(f.delivered) delivered; "
          + "\(fixed(f.microsecondsPerDelivered)) µs per delivered frame, \(fixed(f.microsecondsPerRoomFrame)) µs per room frame")
}

extension String {
    /// "1234" (hundredths) as "12.34".
    var withDecimalPoint: String {
        let digits = count < 3 ? String(repeating: "0", count: 3 - count) + self : self
        return digits.dropLast(2) + "." + digits.suffix(2)
    }
}

let small = try RoomActor.runAndWait { run(rooms: 500, viewers: 1) }
report("500 rooms × (1 + 1)", small)
let large = try RoomActor.runAndWait { run(rooms: 10, viewers: 100) }
report("10 rooms × (100 + 1)", large)
print("rooms_us_per_delivered_frame_small=\(small.microsecondsPerDelivered)")
print("rooms_us_per_delivered_frame_large=\(large.microsecondsPerDelivered)")
print("rooms_cpu_ratio_small_to_large=\(small.microsecondsPerDelivered / large.microsecondsPerDelivered)")
