import Testing
import ScrollcastServerTesting
@testable import ScrollcastRooms

@Suite("Row moves")
@RoomActor struct RowMoveTests {
    /// Tap-and-hold a row (info-panel-and-row-moving.txt: hold, then drag it to a new place).
    @Test func aDroppedRowReachesEveryViewerReliablyWithAVersion() throws {
        let h = Harness()
        let (driver, a) = h.viewer()
        let (_, b) = h.viewer()
        b.isSlow = true  // frames may be skipped for b; row moves must not be
        let (rowID, lifted) = try h.dragRowDown(by: driver, watchedBy: a)
        #expect(lifted, "the held row was lifted")
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
