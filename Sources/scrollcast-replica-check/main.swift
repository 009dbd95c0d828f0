#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import ScrollEngine
import ScrollReplica
import ScrollWire

// The native half of the native/WebAssembly cross-check (docs/wasm.md, "Determinism"):
//   scrollcast-replica-check SEED COUNT        one JSON line per script: the script and the
//                                              numbers the native engine gives for each step,
//                                              then "# scripts=N steps=S frames=F"
//   scrollcast-replica-check --bytes SEED STEP the v2 bytes of one frame, in hex
//   scrollcast-replica-check --bench SEED COUNT runs the scripts natively and prints the time
//   scrollcast-replica-check --math            the engine's exp, log and pow over MathSweep's
//                                              arguments, one JSON line per function
//   --random-scenes (anywhere) runs each script in a random scene of its own, whose
//   `SceneBytes` (hex) its JSON line carries as `sceneBytes`
// Standard library only, like the engine, so it prints JSON by hand.

func fail(_ message: String) -> Never {
    print("scrollcast-replica-check: " + message)
    exit(2)
}

func number(_ text: String) -> UInt64 {
    guard let n = UInt64(text) else { fail("'\(text)' is not a whole number") }
    return n
}

func json(_ x: Double) -> String {
    x == x.rounded(.towardZero) && x.magnitude < 1e15 ? String(Int64(x)) : "\(x)"
}

let hexDigits = Array("0123456789abcdef")

func hex(_ bytes: [UInt8]) -> String {
    String(bytes.flatMap { [hexDigits[Int($0 >> 4)], hexDigits[Int($0 & 15)]] })
}

/// `state`: the engine's state bytes after step `script.stateStep`, which the WebAssembly side
/// restores there and continues from (the numbers are those of the run that did the same).
/// `hashes`: each frame step's `FrameHash`, as 16 hex digits (JSON numbers cannot hold 64 bits).
func json(_ script: CrossCheckScript, expect: [Double], state: [UInt8]?, hashes: [UInt64]) -> String {
    var out = "{\"seed\":\(script.seed),\"scene\":\"\(script.sceneName)\","
    out += "\"sceneBytes\":" + (script.scene.map { "\"" + hex(SceneBytes.encode($0)) + "\"" } ?? "null") + ",\"restore\":"
    if let r = script.restore {
        out += "{\"swaps\":[" + r.swaps.map { "[\($0.0),\($0.1)]" }.joined(separator: ",") + "],"
        out += "\"w\":\(json(r.viewport.width)),\"h\":\(json(r.viewport.height)),\"offset\":\(json(r.offset))}"
    } else {
        out += "null"
    }
    out += ",\"steps\":["
    out += script.steps.map { step -> String in
        switch step {
        case .apply(let c, let id, let time, let viewer):
            return "[0,\(c.kind),\(id),\(json(time)),\(json(c.a)),\(json(c.b)),\(json(c.c)),\(json(c.d)),\(viewer)]"
        case .frame(let time):
            return "[1,\(json(time))]"
        }
    }.joined(separator: ",")
    out += "],\"state\":" + (state.map { "{\"step\":\(script.stateStep),\"hex\":\"\(hex($0))\"}" } ?? "null")
    out += ",\"hashes\":[" + hashes.map { h in "\"" + hex((0..<8).map { UInt8(truncatingIfNeeded: h >> (8 * UInt64(7 - $0))) }) + "\"" }
        .joined(separator: ",") + "]"
    out += ",\"expect\":[" + expect.map(json).joined(separator: ",") + "]}"
    return out
}

let randomScenes = CommandLine.arguments.contains("--random-scenes")
let args = CommandLine.arguments.dropFirst().filter { $0 != "--random-scenes" }

func makeScript(_ seed: UInt64) -> CrossCheckScript { CrossCheckScript(seed: seed, randomScene: randomScenes) }
switch args.first {
case "--bytes":
    guard args.count == 3 else { fail("usage: --bytes SEED STEP") }
    let script = makeScript(number(args[1]))
    let (_, bytes, _, _) = CrossCheckRun.run(script, keep: Int(number(args[2])), roundTripAt: script.stateStep)
    guard let bytes else { fail("step \(args[2]) of seed \(args[1]) is not a frame") }
    print(hex(bytes))
case "--bench":
    guard args.count == 3 else { fail("usage: --bench SEED COUNT") }
    let first = number(args[1]), count = number(args[2])
    let clock = ContinuousClock()
    var steps = 0
    let elapsed = clock.measure {
        for seed in first..<first + count {
            steps += CrossCheckRun.run(makeScript(seed)).expect.count / 3
        }
    }
    let ms = Double(elapsed.components.seconds) * 1000 + Double(elapsed.components.attoseconds) / 1e15
    print("native: \(count) scripts, \(steps) steps in \(Int(ms)) ms")
case "--math":
    for line in MathSweep.lines() { print(line) }
case .some:
    guard args.count == 2 else { fail("usage: SEED COUNT | --bytes SEED STEP | --bench SEED COUNT | --math") }
    let first = number(args[0]), count = number(args[1])
    var steps = 0, frames = 0
    for seed in first..<first + count {
        let script = makeScript(seed)
        let run = CrossCheckRun.run(script, roundTripAt: script.stateStep)
        print(json(script, expect: run.expect, state: run.state, hashes: run.hashes))
        steps += script.steps.count
        frames += script.steps.filter { if case .frame = $0 { return true } else { return false } }.count
    }
    print("# scripts=\(count) steps=\(steps) frames=\(frames)")
case nil:
    fail("usage: SEED COUNT | --bytes SEED STEP | --bench SEED COUNT | --math")
}
