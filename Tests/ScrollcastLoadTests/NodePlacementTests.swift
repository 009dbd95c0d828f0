import Testing
@testable import scrollcast_load

@Suite("Where a room's connections go")
struct NodePlacementTests {
    @Test("viewer k of room r is on node (r + k) mod N, so viewer 0 is on the room's first node")
    func viewers() {
        let placement = NodePlacement(nodes: 3, driverNode: .other)
        #expect((0..<5).map { placement.node(ofViewer: $0, room: 0) } == [0, 1, 2, 0, 1])
        #expect((0..<5).map { placement.node(ofViewer: $0, room: 4) } == [1, 2, 0, 1, 2])
        for room in 0..<7 {
            #expect(placement.node(ofViewer: 0, room: room) == placement.firstNode(ofRoom: room))
        }
    }

    @Test("by default drivers are never on the room's first node, and several take the other nodes in turn")
    func driversElsewhere() {
        let placement = NodePlacement(nodes: 3, driverNode: .other)
        for room in 0..<9 {
            let drivers = (0..<4).map { placement.node(ofDriver: $0, room: room) }
            #expect(!drivers.contains(placement.firstNode(ofRoom: room)), "room \(room): \(drivers)")
            #expect(Set(drivers).count == 2)
        }
        #expect((0..<3).map { placement.node(ofDriver: $0, room: 1) } == [2, 0, 2])
        // Two nodes: the other one, always.
        let two = NodePlacement(nodes: 2, driverNode: .other)
        #expect((0..<3).map { two.node(ofDriver: $0, room: 0) } == [1, 1, 1])
    }

    @Test("first puts drivers on the room's first node; alternate does so for even rooms only")
    func firstAndAlternate() {
        let first = NodePlacement(nodes: 3, driverNode: .first)
        let alternate = NodePlacement(nodes: 3, driverNode: .alternate)
        for room in 0..<6 {
            #expect(first.node(ofDriver: 0, room: room) == room % 3)
            let local = alternate.node(ofDriver: 0, room: room) == room % 3
            #expect(local == (room % 2 == 0), "room \(room)")
        }
    }

    @Test("with one node everything is on node 0, whatever --driver-node says",
          arguments: NodePlacement.DriverNode.allCases)
    func oneNode(driverNode: NodePlacement.DriverNode) {
        let placement = NodePlacement(nodes: 1, driverNode: driverNode)
        for room in 0..<4 {
            #expect(placement.node(ofDriver: 1, room: room) == 0 && placement.node(ofViewer: 3, room: room) == 0)
        }
    }
}
