import Testing
@testable import ScrollcastServer

@Suite("Row moves")
struct RowMoveTests {
    /// Tap-and-hold a row (info-panel-and-row-moving.txt: hold, then drag it to a new place).
    @Test func aDroppedRowReachesEveryViewerReliablyWithAVersion() throws {
        let h = Harness()
        let (driver, a) = h.viewer()
        let (_, b) = h.viewer()
        b.isSlow = true  // frames may be skipped for b; row moves must not be
        let snapshot = try #require(a.messages.first)
        let rows = try #require((snapshot["frame"] as? [String: Any])?["rows"] as? [[String: Any]])
        let row = try #require(rows.first { ($0["y"] as? Double ?? 0) > 300 })
        let rowID = try #require(row["id"] as? Int)
        let y = (row["y"] as? Double ?? 0) + 32

        h.input(1, t: 0, "pointerDown", #""x":150,"y":\#(y)"#, from: driver)
        let hold = 36  // ≈ 600 ms of ticks at 60 fps
        h.tick(hold)
        var t = h.limits.tickMilliseconds * Double(hold)
        var id: UInt64 = 2
        for step in 1...10 {
            h.input(id, t: t, "pointerMove", #""x":150,"y":\#(y + 20 * Double(step))"#, from: driver)
            id += 1
            t += 16
            h.tick()
        }
        #expect(a.messages(ofType: "frame").contains { $0["lifted"] is [String: Any] }, "the held row was lifted")
        h.input(id, t: t, "pointerUp", #""x":150,"y":\#(y + 200)"#, from: driver)

        let movedA = try #require(a.messages(ofType: "rowMoved").first)
        let movedB = try #require(b.messages(ofType: "rowMoved").first)
        #expect(a.received.first { decodeJSON($0)["type"] as? String == "rowMoved" }
                === b.received.first { decodeJSON($0)["type"] as? String == "rowMoved" }, "encoded once")
        #expect(movedA["rowId"] as? Int == rowID)
        #expect(movedA["version"] as? Int == 1)
        #expect(movedA["by"] as? String == "v1")
        #expect(movedB["rowId"] as? Int == rowID)

        let (_, late) = h.viewer()
        let to = try #require(movedA["to"] as? [String: Int])
        let sections = try #require((late.messages.first?["scene"] as? [String: Any])?["sections"] as? [[String: Any]])
        let order = try #require(sections[to["s"] ?? 0]["rows"] as? [Int])
        #expect(order[to["r"] ?? 0] == rowID, "a late joiner's snapshot has the new order")
    }
}
