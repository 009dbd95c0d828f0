import ScrollWire
import ScrollcastRooms
import Testing
@testable import ScrollcastCluster

/// Handing over the drive across nodes (docs/cluster.md, "Sharing across nodes"), whole nodes on
/// the in-memory broker and the manual clock: a watcher on a follower asks, the key holders on the
/// owner and on another follower see the request, either answers, requests lapse and are rate
/// limited as on one node, and a grant survives a resume on another node. Each check runs again
/// with the followers' sharing messages lost on the way (`relayed: false`) and must fail there.
@Suite("Sharing the drive across nodes")
@RoomActor struct ClusterSharingTests {
    /// The watcher asks, then `scenario` goes on: none of the checks may fail when the messages
    /// are relayed, some must when not. `scenario` gets the room, the asker and the problems.
    func afterAsking(relayed: Bool, _ scenario: (SharingRoom, String, inout [String]) -> Void) throws {
        let room = try SharingRoom(relayed: relayed)
        var problems = room.ask()
        scenario(room, room.watcher.id, &problems)
        if relayed {
            #expect(problems.isEmpty, "\(problems)")
        } else {
            #expect(!problems.isEmpty, "the checks passed with the followers' sharing messages lost")
        }
    }

    @Test("a watcher on a follower asks; the key holders on the owner and another follower see it; the follower's holder grants; the watcher drives",
          arguments: [true, false])
    func askAndGrant(relayed: Bool) throws {
        try afterAsking(relayed: relayed) { room, asker, problems in
            let (holder, follower, watcher) = (room.holder, room.follower, room.watcher)
            follower.send(#"{"type":"grant","viewer":"\#(asker)"}"#)
            room.expect("the grant did not reach the asker with its token", in: &problems) {
                watcher.notices.contains { if case .granted(asker, follower.id, let grant?) = $0 { grant.count == 64 } else { false } }
            }
            room.expect("the holders were not told of the grant, without its token", in: &problems) {
                [holder, follower].allSatisfy { $0.notices.contains(.granted(viewer: asker, by: follower.id, grant: nil)) }
                    && holder.sharing?.granted == [asker]
            }
            watcher.wheel(1)
            room.expect("the granted watcher's input was not applied", in: &problems) { holder.sawApplied(1, of: asker) }
            if watcher.refusals(of: 1) != [] { problems.append("refused: \(watcher.refusals(of: 1))") }
            if holder.notices.contains(where: { if case .granted(_, _, _?) = $0 { true } else { false } }) {
                problems.append("a key holder was sent the asker's grant token")
            }
        }
    }

    @Test("key holders on the owner and a follower refuse; asks are rate limited and one open at a time; an unanswered request lapses after 30 s on every node",
          arguments: [true, false])
    func refuseLimitAndExpire(relayed: Bool) throws {
        try afterAsking(relayed: relayed) { room, asker, problems in
            // The owner's key holder refuses: the asker and the other holder are told.
            room.holder.send(#"{"type":"deny","viewer":"\#(asker)"}"#)
            let (holder, follower, watcher) = (room.holder, room.follower, room.watcher)
            room.expect("the refusal did not reach the asker and the other holder", in: &problems) {
                [watcher, follower].allSatisfy { $0.notices.contains(.denied(viewer: asker, by: holder.id)) }
            }
            watcher.wheel(1)
            room.expect("the refused watcher's input was not refused as locked", in: &problems) { watcher.refusals(of: 1) == ["locked"] }
            // The second of two at once; asking again while it is open is `pending`.
            watcher.send(#"{"type":"ask"}"#)
            room.expect("the second request was not opened", in: &problems) { watcher.notices.filter { $0.type == "asked" }.count == 2 }
            watcher.send(#"{"type":"ask"}"#)
            room.expect("asking while a request is open was not refused as pending", in: &problems) { watcher.refusals() == ["pending"] }
            // Answered, a third at once is over the allowance; 10 s later one more is allowed.
            follower.send(#"{"type":"deny","viewer":"\#(asker)"}"#)
            room.expect("the follower's key holder could not refuse", in: &problems) {
                watcher.notices.contains(.denied(viewer: asker, by: follower.id))
            }
            watcher.send(#"{"type":"ask"}"#)
            room.expect("a third request at once was not rate limited", in: &problems) { watcher.refusals().last == "rateLimited" }
            room.cluster.run(10_000)
            watcher.send(#"{"type":"ask"}"#)
            room.expect("a request 10 s later was not opened", in: &problems) { watcher.notices.filter { $0.type == "asked" }.count == 3 }
            // Unanswered, it lapses after 30 s, for the asker and the holders on both nodes.
            room.cluster.run(28_000)
            if watcher.notices.contains(.expired(viewer: asker)) { problems.append("the request lapsed before 30 s") }
            room.expect("the request did not lapse on every node", within: 3_000, in: &problems) {
                [holder, follower, watcher].allSatisfy { $0.notices.contains(.expired(viewer: asker)) }
            }
        }
    }

    @Test("a granted watcher resumes on another node and keeps its grant, whether its old connection closes before or after",
          arguments: [true, false])
    func resumeKeepsTheGrant(closesFirst: Bool) throws {
        let room = try SharingRoom()
        let (holder, watcher) = (room.holder, room.watcher)
        watcher.send(#"{"type":"ask"}"#)
        try #require(room.cluster.run(upTo: 1_000) { holder.notices.contains { $0.type == "asked" } })
        holder.send(#"{"type":"grant","viewer":"\#(watcher.id)"}"#)
        try #require(room.cluster.run(upTo: 1_000) { watcher.notices.contains { $0.type == "granted" } })
        let grants = watcher.notices.compactMap { if case .granted(_, _, let grant?) = $0 { grant } else { nil } }
        let grant = try #require(grants.first)
        let point = try #require(watcher.snapshot?.resumePoint)
        func resume(presenting grant: String?) -> TestViewer {
            let field = grant.map { #","grant":"\#($0)""# } ?? ""
            return room.cluster["n2"].viewer(joining: "lobby", extra: #""resume":{"life":\#(point.life),"seq":0,"moves":0\#(field)}"#)
        }
        if closesFirst { watcher.close() }
        // The known-bad case first: without the grant the new connection only watches.
        let bare = resume(presenting: nil)
        let resumed = resume(presenting: grant)
        try #require(room.cluster.run(upTo: 1_000) { bare.joined && resumed.joined })
        if !closesFirst { watcher.close() }
        bare.wheel(1)
        resumed.wheel(2)
        #expect(room.cluster.run(upTo: 1_000) { holder.sawApplied(2, of: resumed.id) })
        #expect(room.cluster.run(upTo: 1_000) { bare.refusals(of: 1) == ["locked"] })
        #expect(room.cluster.run(upTo: 1_000) { holder.sharing?.granted == [resumed.id] })
    }

    @Test("failover: pending requests and grants lapse with the owner; the new owner's key holders answer new ones")
    func failover() throws {
        let room = try SharingRoom()
        let (holder, follower, watcher) = (room.holder, room.follower, room.watcher)
        let granted = room.cluster["n3"].viewer(joining: "lobby")
        try #require(room.cluster.run(upTo: 1_000) { granted.snapshots == 1 })
        granted.send(#"{"type":"ask"}"#)
        try #require(room.cluster.run(upTo: 1_000) { holder.notices.contains { $0 == .asked(viewer: granted.id, expiresIn: 30_000) } })
        holder.send(#"{"type":"grant","viewer":"\#(granted.id)"}"#)
        watcher.send(#"{"type":"ask"}"#)
        try #require(room.cluster.run(upTo: 1_000) { follower.notices.filter { $0.type == "asked" }.count == 2 })
        #expect(follower.sharing.map { $0.granted } == [granted.id])

        room.cluster.broker.kill("n1")
        try #require(room.cluster.run(upTo: 3_000) {
            room.cluster.broker.lease(of: "lobby").map { $0.node != "n1" } == true
                && [follower, watcher, granted].allSatisfy { $0.snapshots == 2 }
        })
        // The new room has no grant: the granted viewer's input is refused as any watcher's.
        granted.wheel(1)
        #expect(room.cluster.run(upTo: 1_000) { granted.refusals(of: 1) == ["locked"] })
        // The open request lapsed with the room (the page says so on its new snapshot): asking
        // again opens a new one, not `pending`, and the key holder on n2 sees it.
        watcher.send(#"{"type":"ask"}"#)
        #expect(room.cluster.run(upTo: 1_000) { follower.notices.filter { $0 == .asked(viewer: watcher.id, expiresIn: 30_000) }.count == 2 })
        #expect(watcher.refusals() == [])
    }
}
