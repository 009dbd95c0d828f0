import ScrollcastRooms

/// Where one room's link on this node stands (docs/cluster.md, "The link's states"). Each case
/// carries what means something in it, and nothing else; `LinkMachine.next` is the only way from
/// one to another. The viewers connected here, the room itself and the queues are the driver's
/// (`RoomLink`), which executes the effects.
///
/// ```
///            start                  granted                loaded
///  (new) ──────────▶ claiming ──────────────▶ starting ─────────────▶ owner
///                      │  held                   ▲  │ lost             │  lease lost / fenced
///                      ▼                 granted │  ▼                  ▼
///                   follower ◀───────────────────┴── follower ◀────── (stepped down)
///                      │  idle 10 s, claim failed first, room refused, evicted empty
///                      ▼
///                    closed
/// ```
enum LinkState: Hashable {
    /// Asking for the lease for the first time (or again after the room here was evicted while
    /// viewers stayed); viewers and their inputs wait.
    case claiming(seenEpoch: UInt64)
    /// The lease is this node's; the room is being read from the store.
    case starting(Starting)
    /// The room runs here under this lease.
    case owner(RoomLease)
    /// Another node runs it; this node relays for its viewers here.
    case follower(Follower)
    /// Nothing left here: the driver forgets the link.
    case closed

    struct Starting: Hashable {
        var lease: RoomLease
        /// The state to go back to if the room cannot be read: nil when this is the first claim
        /// (then the waiting viewers are closed instead).
        var follower: Follower?
    }

    struct Follower: Hashable {
        /// The node running the room, when known.
        var owner: String?
        /// The highest owner epoch seen: anything published under an older one is stale.
        var epoch: UInt64
        var subscription: Subscription = .pending
        /// Whether a claim (the owner's watch) is under way.
        var claiming = false
        /// Since when (room clock ms) no viewer here watches the room.
        var emptySince: Double?
    }

    enum Subscription: Hashable {
        /// Asked for; the owner hears nothing from this node until Redis confirms it.
        case pending
        /// Confirmed while the pub/sub link had been lost `losses` times: a confirmation after a
        /// further loss means a gap in which messages may have been missed.
        case live(losses: Int)
    }

    /// Whether viewers joining now are the room's first (so a join may create it here).
    var placesFirstViewers: Bool {
        switch self {
        case .claiming: true
        case .starting(let starting): starting.follower == nil
        default: false
        }
    }

    var isOwner: Bool { if case .owner = self { true } else { false } }
    var isFollower: Bool { if case .follower = self { true } else { false } }
}

/// What happens to a link. Facts the driver knows (whether viewers remain, the time) come with
/// the event, so the transition needs nothing else.
enum LinkEvent: Hashable {
    /// The link was made for its first viewer.
    case start
    case viewerJoined(String)
    case viewerLeft
    case claimGranted(RoomLease)
    case claimHeld(LeaseHolder)
    case claimFailed(String)
    /// The room was read from the store (nil: it has none) for `lease`.
    case loaded(RoomLease, LoadedRoom?)
    case loadFailed(RoomLease, String)
    /// The registry could not make the room (too many rooms).
    case roomRefused(RoomLease, JoinFailure)
    /// The room channel's subscription took effect, with the pub/sub link's losses so far.
    case subscribed(losses: Int)
    /// Something the owner published.
    case published(epoch: UInt64, node: String)
    /// This node's lease is gone (renewal answered with another holder, or a write fenced).
    case leaseLost(holder: LeaseHolder?, hasViewers: Bool)
    /// The room run here left memory (nobody watched it for its grace period).
    case evicted(hasViewers: Bool)
    /// The owner watch (every `watchMilliseconds`).
    case watch(now: Double, hasViewers: Bool, idleMilliseconds: Double)
    /// The roster timer (every `rosterMilliseconds`); `heard`: the pub/sub link has been up long
    /// enough that silence from another node means it is gone.
    case rosterTick(heard: Bool)
}

/// A room read from the store, and the last frame number published for it.
struct LoadedRoom: Hashable {
    var stored: StoredRoom
    var sequence: UInt64
}

/// What the driver does after a transition, in order.
enum LinkEffect: Hashable {
    case claim
    case load(RoomLease)
    /// Makes the room here from what was loaded, admits the viewers, applies waiting inputs and
    /// announces the owner. `takeover`: another node ran it before.
    case run(RoomLease, LoadedRoom?, takeover: Bool)
    case release(RoomLease)
    /// Drops the room run here (stepped down or evicted) and the other nodes' viewers in it.
    case stopRoom
    case subscribe
    case unsubscribe
    case sendRoster
    /// Every viewer here waits for a fresh snapshot (and gets nothing else until it comes).
    case awaitSnapshots
    /// As `awaitSnapshots`, and each viewer's generation is bumped so the owner sends one.
    case resynchronise
    /// The viewer joins the room run here.
    case admit(String)
    /// The viewer waits for its snapshot from the owner.
    case awaitSnapshot(String)
    /// Inputs that waited for the owner to hear this node go out now.
    case replayWaitingInputs
    /// The owner's message reaches the viewers here.
    case deliver
    /// The owner's message is from an older epoch: dropped and counted.
    case dropStale
    /// The viewers of nodes silent too long leave the room run here.
    case dropSilentNodes
    /// The viewers waiting here are closed with this reason.
    case fail(JoinFailure)
    /// The link is forgotten (and its room channel unsubscribed).
    case forget
}

/// Where an input of a viewer here goes, by the link's state.
enum InputRoute: Hashable {
    /// Into the room run here.
    case apply
    /// To the owner, on its node channel.
    case forward(to: String)
    /// Kept until the room is placed (or the owner hears this node).
    case wait
    /// Refused `unavailable`: the owner cannot be reached.
    case refuse
}
