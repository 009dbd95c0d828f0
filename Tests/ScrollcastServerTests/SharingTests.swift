import Testing
import ScrollWire
import ScrollcastServerTesting
@testable import ScrollcastRooms

/// Sharing (docs/protocol.md, "Sharing") on the manual clock: asking to drive a locked room, the
/// key holder's grant or denial, the requests' allowance and expiry, grants across a resume (and
/// not across a new join), following and exploring, and calling everyone back.
@Suite @RoomActor struct SharingTests {
    /// A locked room `room` with its creator (who holds the key) and one watcher.
    private func lockedRoom(_ h: Harness, _ room: String = "locked", watcherExtra: String = "")
        -> (owner: ViewerID, o: RecordingViewerSink, watcher: ViewerID, w: RecordingViewerSink, watcherName: String, ownerName: String) {
        let (owner, o) = h.viewer(joining: room, extra: #","lock":true"#)
        let (watcher, w) = h.viewer(joining: room, extra: watcherExtra)
        let ownerName = o.messages(ofType: "snapshot").first?["viewer"] as? String ?? ""
        let watcherName = w.messages(ofType: "snapshot").first?["viewer"] as? String ?? ""
        return (owner, o, watcher, w, watcherName, ownerName)
    }

    private func wheel(_ id: UInt64, from connection: ViewerID, _ h: Harness) {
        h.input(id, t: Double(id) * 10, "wheel", #""dx":0,"dy":40,"mode":"pixel""#, from: connection)
    }

    private func codes(_ sink: RecordingViewerSink) -> [String] {
        sink.messages(ofType: "refused").compactMap { $0["code"] as? String }
    }

    @Test func aGrantedWatcherDrivesTheRoomWithoutEverSeeingTheKey() throws {
        let h = Harness()
        let (owner, o, watcher, w, name, ownerName) = lockedRoom(h)
        let key = try #require(o.messages(ofType: "snapshot").first?["driverKey"] as? String)
        wheel(1, from: watcher, h)
        #expect(codes(w) == ["locked"])

        h.send(#"{"type":"ask"}"#, from: watcher)
        let asked = try #require(o.messages(ofType: "asked").first)
        #expect(asked["viewer"] as? String == name)
        #expect(asked["expiresIn"] as? Int == 30_000)
        #expect(w.messages(ofType: "asked").count == 1, "the asker learns when its request lapses")

        h.send(#"{"type":"grant","viewer":"\#(name)"}"#, from: owner)
        let granted = try #require(w.messages(ofType: "granted").first)
        #expect(granted["by"] as? String == ownerName)
        let grant = try #require(granted["grant"] as? String)
        #expect(grant != key && !w.received.contains { String(decoding: $0.bytes, as: UTF8.self).contains(key) })
        #expect(o.messages(ofType: "granted").first?["grant"] == nil, "only the asker gets its grant")
        #expect(o.messages(ofType: "presence").last?["granted"] as? [String] == [name])

        h.tick()
        wheel(2, from: watcher, h)
        h.tick()
        #expect(codes(w) == ["locked"])
        let input = try #require(o.messages(ofType: "frame").last?["input"] as? [String: Any])
        #expect(input["viewer"] as? String == name && input["id"] as? Int == 2)
    }

    @Test func onlyKeyHoldersAnswerAndOnlyOpenRequests() throws {
        let h = Harness()
        let (owner, o, watcher, w, name, _) = lockedRoom(h)
        let (other, x) = h.viewer(joining: "locked")
        h.send(#"{"type":"ask"}"#, from: watcher)
        #expect(x.messages(ofType: "asked").isEmpty, "watchers do not see each other's requests")
        h.send(#"{"type":"grant","viewer":"\#(name)"}"#, from: other)
        h.send(#"{"type":"deny","viewer":"\#(name)"}"#, from: other)
        #expect(codes(x) == ["notKeyHolder", "notKeyHolder"])
        #expect(w.messages(ofType: "granted").isEmpty && w.messages(ofType: "denied").isEmpty)

        h.send(#"{"type":"deny","viewer":"\#(name)"}"#, from: owner)
        #expect(w.messages(ofType: "denied").count == 1 && o.messages(ofType: "denied").count == 1)
        h.send(#"{"type":"grant","viewer":"\#(name)"}"#, from: owner)
        #expect(codes(o) == ["noRequest"], "a denied request cannot be granted afterwards")
        wheel(1, from: watcher, h)
        #expect(codes(w) == ["locked"])
    }

    @Test func askingIsLimitedPerViewer() throws {
        let h = Harness()
        let (owner, o, watcher, w, name, _) = lockedRoom(h)
        h.send(#"{"type":"ask"}"#, from: watcher)
        h.send(#"{"type":"ask"}"#, from: watcher)
        #expect(codes(w) == ["pending"])
        h.send(#"{"type":"deny","viewer":"\#(name)"}"#, from: owner)
        h.send(#"{"type":"ask"}"#, from: watcher)
        h.send(#"{"type":"deny","viewer":"\#(name)"}"#, from: owner)
        h.send(#"{"type":"ask"}"#, from: watcher)
        #expect(codes(w) == ["pending", "rateLimited"])
        #expect(o.messages(ofType: "asked").count == 2)
        h.scheduler.advance(by: 9_900)
        h.send(#"{"type":"ask"}"#, from: watcher)
        #expect(codes(w).last == "rateLimited")
        h.scheduler.advance(by: 200)
        h.send(#"{"type":"ask"}"#, from: watcher)
        #expect(o.messages(ofType: "asked").count == 3, "one more every 10 s")

        h.send(#"{"type":"ask"}"#, from: owner)
        #expect(codes(o) == ["mayDrive"])
        let (openViewer, open) = h.viewer(joining: "open")
        h.send(#"{"type":"ask"}"#, from: openViewer)
        #expect(codes(open) == ["mayDrive"], "anyone may drive an open room")
    }

    @Test func anUnansweredRequestLapsesOnTheRoomsOwnTimer() throws {
        let h = Harness()
        let (owner, o, watcher, w, name, _) = lockedRoom(h)
        h.send(#"{"type":"ask"}"#, from: watcher)
        h.scheduler.advance(by: 29_990)
        #expect(w.messages(ofType: "expired").isEmpty && o.messages(ofType: "expired").isEmpty)
        h.scheduler.advance(by: 20)
        #expect(w.messages(ofType: "expired").first?["viewer"] as? String == name)
        #expect(o.messages(ofType: "expired").count == 1)
        h.send(#"{"type":"grant","viewer":"\#(name)"}"#, from: owner)
        #expect(codes(o) == ["noRequest"])

        // A request whose asker leaves lapses for the key holders at once.
        h.scheduler.advance(by: 20_000)
        h.send(#"{"type":"ask"}"#, from: watcher)
        h.service.closed(watcher)
        #expect(o.messages(ofType: "expired").count == 2)
    }

    @Test func aKeyHolderJoiningLaterSeesTheOpenRequests() throws {
        let h = Harness()
        let (_, o, watcher, _, name, _) = lockedRoom(h)
        let key = try #require(o.messages(ofType: "snapshot").first?["driverKey"] as? String)
        h.send(#"{"type":"ask"}"#, from: watcher)
        h.scheduler.advance(by: 5_000)
        let (_, late) = h.viewer(joining: "locked", extra: #","driverKey":"\#(key)""#)
        let asked = try #require(late.messages(ofType: "asked").first)
        #expect(asked["viewer"] as? String == name && asked["expiresIn"] as? Int == 25_000)
    }

    @Test func aGrantSurvivesItsViewersResumeButNotANewJoin() throws {
        let h = Harness()
        let (owner, _, watcher, w, name, _) = lockedRoom(h, watcherExtra: #","resumable":true"#)
        let snapshot = try #require(w.messages(ofType: "snapshot").first)
        let life = try #require(snapshot["life"] as? Int)
        let seq = try #require((snapshot["frame"] as? [String: Any])?["seq"] as? Int)
        h.send(#"{"type":"ask"}"#, from: watcher)
        h.send(#"{"type":"grant","viewer":"\#(name)"}"#, from: owner)
        let grant = try #require(w.messages(ofType: "granted").first?["grant"] as? String)
        h.service.closed(watcher)

        let resume = #","resume":{"life":\#(life),"seq":\#(seq),"moves":0,"grant":"\#(grant)"}"#
        let (back, b) = h.viewer(joining: "locked", extra: resume)
        let backName = try #require(b.messages(ofType: "resumed").first?["viewer"] as? String)
        #expect(b.messages(ofType: "presence").first?["granted"] as? [String] == [backName])
        wheel(1, from: back, h)
        #expect(codes(b).isEmpty, "the resumed connection drives as its grant allows")

        // A new join gets no grant, nor does a second connection presenting the same grant.
        let (fresh, f) = h.viewer(joining: "locked")
        let (copy, c) = h.viewer(joining: "locked", extra: resume)
        h.tick()
        wheel(1, from: fresh, h)
        wheel(1, from: copy, h)
        #expect(codes(f) == ["locked"] && codes(c) == ["locked"])
    }

    @Test func aGrantWaitsOneMinuteForItsViewersResume() throws {
        let h = Harness()
        let (owner, _, watcher, w, name, _) = lockedRoom(h, watcherExtra: #","resumable":true"#)
        let life = try #require(w.messages(ofType: "snapshot").first?["life"] as? Int)
        h.send(#"{"type":"ask"}"#, from: watcher)
        h.send(#"{"type":"grant","viewer":"\#(name)"}"#, from: owner)
        let grant = try #require(w.messages(ofType: "granted").first?["grant"] as? String)
        h.service.closed(watcher)
        h.scheduler.advance(by: 60_100)
        let (late, l) = h.viewer(joining: "locked", extra: #","resume":{"life":\#(life),"seq":0,"moves":0,"grant":"\#(grant)"}"#)
        wheel(1, from: late, h)
        #expect(codes(l) == ["locked"])
    }

    @Test func presenceCountsExplorersAndExplorersDoNotDrive() throws {
        let h = Harness()
        let (a, sa) = h.viewer(joining: "open")
        let (b, sb) = h.viewer(joining: "open")
        h.scheduler.advance(by: 300)
        sa.clear()
        h.send(#"{"type":"view","mode":"explore"}"#, from: b)
        h.scheduler.advance(by: 300)
        #expect(sa.messages(ofType: "presence").last?["exploring"] as? Int == 1)
        wheel(1, from: b, h)
        #expect(codes(sb) == ["exploring"])
        let (_, sc) = h.viewer(joining: "open")
        #expect(sc.messages(ofType: "presence").first?["exploring"] as? Int == 1, "a joiner learns how many explore")

        h.send(#"{"type":"view","mode":"follow"}"#, from: b)
        h.scheduler.advance(by: 300)
        let last = try #require(sa.messages(ofType: "presence").last)
        #expect(last["exploring"] == nil && last["viewers"] as? Int == 3)
        wheel(2, from: b, h)
        #expect(codes(sb) == ["exploring"])
        _ = a
    }

    @Test func exploringWaitsForTheViewersOwnGestureToEnd() throws {
        let h = Harness()
        let (a, sa) = h.viewer(joining: "open")
        h.input(1, t: 0, "pointerDown", #""x":100,"y":400"#, from: a)
        h.send(#"{"type":"view","mode":"explore"}"#, from: a)
        #expect(codes(sa) == ["gestureInProgress"])
        h.input(2, t: 20, "pointerUp", #""x":100,"y":400"#, from: a)
        h.send(#"{"type":"view","mode":"explore"}"#, from: a)
        wheel(3, from: a, h)
        #expect(codes(sa) == ["gestureInProgress", "exploring"])
    }

    @Test func aKeyHolderCallsTheExplorersBack() throws {
        let h = Harness()
        let (owner, o, watcher, w, _, ownerName) = lockedRoom(h)
        let (other, x) = h.viewer(joining: "locked")
        h.send(#"{"type":"view","mode":"explore"}"#, from: watcher)
        h.send(#"{"type":"view","mode":"explore"}"#, from: other)
        h.scheduler.advance(by: 300)
        #expect(o.messages(ofType: "presence").last?["exploring"] as? Int == 2)

        h.send(#"{"type":"callBack"}"#, from: other)
        #expect(codes(x) == ["notKeyHolder"])
        #expect(w.messages(ofType: "follow").isEmpty)

        h.send(#"{"type":"callBack"}"#, from: owner)
        #expect(w.messages(ofType: "follow").first?["by"] as? String == ownerName)
        #expect(x.messages(ofType: "follow").count == 1)
        #expect(o.messages(ofType: "follow").isEmpty, "followers are not called")

        h.send(#"{"type":"view","mode":"follow"}"#, from: watcher)
        h.scheduler.advance(by: 300)
        #expect(o.messages(ofType: "presence").last?["exploring"] as? Int == 1, "counted back as they confirm")
        h.send(#"{"type":"view","mode":"follow"}"#, from: other)
        h.scheduler.advance(by: 300)
        #expect(o.messages(ofType: "presence").last?["exploring"] == nil)
    }

    @Test func anyoneCallsEveryoneBackInAnOpenRoom() throws {
        let h = Harness()
        let (a, _) = h.viewer(joining: "open")
        let (b, sb) = h.viewer(joining: "open")
        h.send(#"{"type":"view","mode":"explore"}"#, from: b)
        h.send(#"{"type":"callBack"}"#, from: a)
        #expect(sb.messages(ofType: "follow").count == 1)
    }

    @Test func sharingBeforeJoiningIsAProtocolError() throws {
        let h = Harness()
        let (id, sink) = h.viewer(joining: nil)
        h.send(#"{"type":"ask"}"#, from: id)
        #expect(sink.closedWith?.code == .policyViolation)
        #expect(sink.messages(ofType: "error").first?["message"] as? String == "send 'join' before 'ask'")
    }

    @Test(arguments: [
        (#"{"type":"view","mode":"sideways"}"#, "field 'mode' must be one of follow, explore; got 'sideways'"),
        (#"{"type":"grant"}"#, "missing field 'viewer'"),
        (#"{"type":"deny","viewer":""}"#, "field 'viewer' must be a viewer id of 1–64 characters"),
    ])
    func aMalformedSharingMessageIsAProtocolError(message: String, error: String) throws {
        let h = Harness()
        let (id, sink) = h.viewer(joining: "open")
        h.send(message, from: id)
        #expect(sink.messages(ofType: "error").first?["message"] as? String == error)
        #expect(sink.closedWith?.code == .policyViolation)
    }

    @Test func version2ViewersGetTheSameMessagesInBinary() throws {
        let h = Harness()
        let (owner, _) = h.viewer(joining: "locked", extra: #","lock":true"#, version: .v2)
        let (watcher, w) = h.viewer(joining: "locked", version: .v2)
        h.send(#"{"type":"ask"}"#, from: watcher)
        let name = try #require(try w.v2Common().compactMap { if case .snapshot(let s) = $0 { s.viewer } else { nil } }.first)
        h.send(#"{"type":"grant","viewer":"\#(name)"}"#, from: owner)
        h.send(#"{"type":"view","mode":"explore"}"#, from: watcher)
        h.scheduler.advance(by: 300)
        let messages = try w.v2Common()
        #expect(messages.contains(.sharing(.asked(viewer: name, expiresIn: 30_000))))
        #expect(messages.contains { if case .sharing(.granted(name, _, .some)) = $0 { true } else { false } })
        #expect(messages.contains(.presence(viewers: 2, driver: nil, locked: true, exploring: 1, granted: [name])))
    }
}
