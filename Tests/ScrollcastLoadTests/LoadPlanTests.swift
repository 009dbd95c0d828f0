import Testing
@testable import scrollcast_load

@Suite("A plan's connections on one server and on a cluster")
struct LoadPlanTests {
    private func plan(_ urls: String, rooms: Int = 4, viewers: Int = 3, drivers: Int = 1,
                      driverNode: NodePlacement.DriverNode = .other) throws -> LoadPlan {
        LoadPlan(nodes: try NodeList(urls: urls), driverNode: driverNode, rooms: rooms, viewersPerRoom: viewers,
                 driversPerRoom: drivers, script: .fling, seed: 1, durationSeconds: 1, rampSeconds: 0,
                 roomPrefix: "p", keptUpMs: 50, threads: 1)
    }

    private let three = "ws://127.0.0.1:8001/ws,ws://127.0.0.1:8002/ws,ws://127.0.0.1:8003/ws"

    @Test("one URL: drivers first, everyone on node 0, no founder, drivers local, opening order as before")
    func oneServer() throws {
        let plan = try plan("ws://127.0.0.1:8080/ws", rooms: 2)
        let connections = (0..<2).flatMap(plan.connections(ofRoom:))
        #expect(connections.map(\.role) == [.driver, .viewer, .viewer, .viewer, .driver, .viewer, .viewer, .viewer])
        #expect(connections.allSatisfy { $0.node == 0 && !$0.isFounder && $0.ownerIsLocal })
        let order = ConnectionRamp.openingOrder(connections, connectionsPerRoom: 4)
        #expect(order.map(\.index) == [0, 4, 1, 5, 2, 6, 3, 7])
    }

    @Test("a cluster: the room's first viewer founds it on its first node and opens first; drivers elsewhere")
    func cluster() throws {
        let plan = try plan(three)
        let connections = (0..<4).flatMap(plan.connections(ofRoom:))
        for room in 0..<4 {
            let members = connections.filter { $0.roomNumber == room }
            let founder = try #require(members.first { $0.isFounder })
            #expect(members.filter(\.isFounder).count == 1)
            #expect(founder.role == .viewer && founder.node == room % 3 && founder.index == room * 4 + 1)
            #expect(Set(members.filter { $0.role == .viewer }.map(\.node)) == [0, 1, 2])
            let driver = try #require(members.first { $0.role == .driver })
            #expect(driver.node != room % 3 && !driver.ownerIsLocal)
        }
        let order = ConnectionRamp.openingOrder(connections, connectionsPerRoom: 4)
        #expect(order.prefix(4).allSatisfy { $0.isFounder })
        #expect(order.dropFirst(4).allSatisfy { !$0.isFounder })
    }

    @Test("spread counts the connections per node and the local and remote drivers")
    func spread() throws {
        let alternate = try plan(three, rooms: 4, viewers: 3, drivers: 1, driverNode: .alternate).spread()
        #expect(alternate.connectionsPerNode.reduce(0, +) == 16)
        #expect(alternate.localDrivers == 2 && alternate.remoteDrivers == 2)
        let other = try plan(three, rooms: 4, driverNode: .other).spread()
        #expect(other.localDrivers == 0 && other.remoteDrivers == 4)
        let single = try plan("ws://127.0.0.1:8080/ws").spread()
        #expect(single.connectionsPerNode == [16] && single.localDrivers == 4)
    }
}
