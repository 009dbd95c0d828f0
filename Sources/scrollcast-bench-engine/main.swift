// Measures ScrollScene.frame(at:) on a 10,000-row demo scene with the info panel visible and a
// row lifted (the most expensive frame the engine builds). Prints each run's ns/frame, then the
// median as the last line: `engine_ns_per_frame=N`.
import ScrollEngine
#if canImport(Glibc)
import Glibc  // exit()
#endif

func preparedScene() throws(InputRejection) -> (scene: ScrollScene, from: Double) {
    var scene = ScrollScene(configuration: DemoScene.configuration(rowCount: 10_000))
    var id: UInt64 = 0
    func send(_ time: Double, _ kind: InputKind) throws(InputRejection) {
        id += 1
        _ = try scene.apply(InputEvent(id: id, time: time, kind: kind))
    }
    // Drag a long way down the table (the info panel appears), let go without a fling…
    try send(0, .pointerDown(Point(x: 200, y: 700)))
    for step in 1...40 { try send(Double(step) * 16, .pointerMoved(Point(x: 200, y: 700 - Double(step) * 12))) }
    try send(1000, .pointerUp(Point(x: 200, y: 220)))
    // …then lift a row mid-screen while the panel lingers (it stays ~1 s after scrolling stops).
    try send(1010, .longPressBegan(Point(x: 200, y: 420)))
    try send(1020, .longPressMoved(Point(x: 200, y: 470)))
    return (scene, 1020)
}

do {
    let (scene, start) = try preparedScene()
    let probe = scene.frame(at: start + 100)
    guard probe.infoPanel != nil, probe.liftedRow != nil, probe.placeholder != nil else {
        print("bench scene is not in the expected state (panel: \(probe.infoPanel != nil), lifted: \(probe.liftedRow != nil))")
        exit(1)
    }
    let framesPerRun = 200_000
    let runs = 7
    var results: [Double] = []
    var checksum = 0.0
    let clock = ContinuousClock()
    for run in 1...runs {
        let began = clock.now
        for i in 0..<framesPerRun {
            // Spread over the 800 ms while the panel is fully visible.
            let frame = scene.frame(at: start + 50 + Double(i) * (800.0 / Double(framesPerRun)))
            checksum += frame.contentOffset + Double(frame.rows.count)
        }
        let elapsed = clock.now - began
        let ns = Double(elapsed.components.seconds) * 1e9 + Double(elapsed.components.attoseconds) / 1e9
        let perFrame = ns / Double(framesPerRun)
        results.append(perFrame)
        print("run \(run): \(Int(perFrame.rounded())) ns/frame")
    }
    print("checksum \(checksum)")
    let median = results.sorted()[runs / 2]
    print("engine_ns_per_frame=\(Int(median.rounded()))")
} catch {
    print("bench setup failed: \(error)")
    exit(1)
}
