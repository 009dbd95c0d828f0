import ScrollWire
import ScrollcastRooms
import Testing
@testable import ScrollcastCluster

/// Exploring, following and calling back across nodes (docs/cluster.md, "Sharing across nodes"),
/// whole nodes on the in-memory broker and the manual clock: the owner's presence counts the
/// explorers of every node, an explorer's input reaches no room, a key holder on a follower calls
/// back the explorers of every node. Each check runs again with the followers' sharing messages
/// lost on the way (`relayed: false`) and must fail there.
@Suite("Exploring across nodes")
@RoomActor struct ClusterExploreTests {
    @Test("explorers on the owner and a follower are counted on every node; a follower's key holder calls both back",
          arguments: [true, false])
    func exploreAndCallBack(relayed: Bool) throws {
        let room = try SharingRoom(relayed: relayed)
        let (holder, follower, watcher) = (room.holder, room.follower, room.watcher)
        var problems: [String] = []
        let everyone = [holder, follower, watcher]
        holder.send(#"{"type":"view","mode":"explore"}"#)
        watcher.send(#"{"type":"view","mode":"explore"}"#)
        room.expect("presence did not count both explorers on every node", in: &problems) {
            everyone.allSatisfy { $0.sharing?.exploring == 2 }
        }
        // An explorer's input drives its own table: the room refuses it, whoever may drive.
        holder.wheel(1)
        follower.wheel(2)
        room.expect("the explorer's input was not refused as exploring", in: &problems) { holder.refusals(of: 1) == ["exploring"] }
        room.expect("the follower's key holder could not drive", in: &problems) { holder.sawApplied(2, of: follower.id) }
        // A watcher may not call a locked room back; a key holder on a follower may.
        watcher.send(#"{"type":"callBack"}"#)
        room.expect("a watcher's call back was not refused", in: &problems) { watcher.refusals() == ["notKeyHolder"] }
        follower.send(#"{"type":"callBack"}"#)
        room.expect("the explorers on the owner and on n3 were not called back", in: &problems) {
            [holder, watcher].allSatisfy { $0.notices.contains(.follow(by: follower.id)) }
        }
        if follower.notices.contains(where: { $0.type == "follow" }) { problems.append("a viewer that follows was called back") }
        // Each is counted back as it says it follows.
        watcher.send(#"{"type":"view","mode":"follow"}"#)
        room.expect("presence did not count the watcher back", in: &problems) { everyone.allSatisfy { $0.sharing?.exploring == 1 } }
        holder.send(#"{"type":"view","mode":"follow"}"#)
        room.expect("presence did not count the holder back", in: &problems) { everyone.allSatisfy { $0.sharing?.exploring == 0 } }
        if relayed {
            #expect(problems.isEmpty, "\(problems)")
        } else {
            #expect(!problems.isEmpty, "the checks passed with the followers' sharing messages lost")
        }
    }

    @Test("a sharing message while the owner cannot be reached is refused unavailable, not lost")
    func refusedWhileUnreachable() throws {
        let room = try SharingRoom()
        room.cluster.broker.goDown()
        room.watcher.send(#"{"type":"view","mode":"explore"}"#)
        #expect(room.watcher.refusals() == ["unavailable"])
        room.cluster.broker.comeBack()
        #expect(room.cluster.run(upTo: 3_000) { room.watcher.snapshots == 2 })
        room.watcher.send(#"{"type":"view","mode":"explore"}"#)
        #expect(room.cluster.run(upTo: 1_000) { room.holder.sharing?.exploring == 1 })
    }
}
