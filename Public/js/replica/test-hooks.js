// Test-only hooks (window.scrollcast.test, docs/measures.md): known-bad pictures that the
// measures must read badly, and the faults the fallbacks must survive. Nothing in the page
// calls them.

import { inputNumbers } from "./engine.js";
import { RoomClock } from "./room-clock.js";

/** The hooks for `replica` (a PageReplica), or {} without one. */
export function testHooks(replica) {
  if (!replica) return {};
  return {
    /** Moves the replica's clocks (driver's and watcher's) by `ms`: drawing ahead of, or behind, what it knows. */
    skewClock(ms) {
      replica.clock.skew += ms;
      if (replica.watcher) {
        const clock = replica.watcher.clock;
        clock.skew += ms;
        // Behind at once: the watch clock never runs back, and slewing there would take seconds.
        if (ms < 0 && clock.time !== null) clock.time += ms;
      }
    },
    /** The driver's clock leads by `ms` from now on, whatever the room says (null: its own lead again). */
    holdLead(ms) { replica.clock.held = ms; },
    /** Leaves this viewer's input `id` out of the replica's pictures (not out of its confirmed state). */
    dropInput(id) {
      replica.dropped.add(id);
      replica.dirty = true;
    },
    /** This page's inputs go without `at` (mapped from their `t`, as before drivers stamped them): a known-bad driver. */
    unstamped() { replica.stamping = false; },
    /** The engine's next call fails as a trap does. */
    trap() {
      if (replica.engine) replica.engine.broken = new Error("test hook: the engine trapped");
    },
    /** Puts a wheel the room never had into the replica's confirmed state: the next frame mismatches. */
    corrupt() {
      if (!replica.running) return false;
      try {
        replica.engine.load();
        replica.engine.apply(inputNumbers({ kind: "wheel", dx: 0, dy: 400, mode: "pixel" }), 0, replica.latestInputTime, "");
        replica.engine.save();
      } catch (error) {
        replica.disable(error);
      }
      replica.dirty = true;
      return true;
    },
    /** The watcher's clock moves in steps of `ms` (freezes and jumps, never past what it knows): a juddering clock. */
    stepClock(ms) { if (replica.watcher) replica.watcher.clock.quantum = ms; },
    /**
     * The watcher's clock: its offset (ms), the base it adds to, the staleness it covers
     * (`needs`), its prior and the join's round trip it comes from, the new connections it
     * started again at (`resets`), and the marks since this connection's join (`arrivals`:
     * [page time arrived, mark]).
     */
    watchClock: () => {
      const c = replica.watcher?.clock;
      return c && { offset: c.offset, base: c.base, gap: c.gap, needs: [...c.needs], prior: c.prior, roundTrip: c.roundTrip,
                    resets: c.resets, arrivals: c.arrivals.map((a) => [...a]) };
    },
    /**
     * The driver's clock: its lead (ms), its target and base, the link's round trip (the join's,
     * or twice a quicker ping's) and the join's as read (`joined`), the own inputs the room
     * applied elsewhere than stamped and those it said it held (`held`), and the arrival clock's
     * offset (page minus room ms) and samples.
     */
    lead: () => ({ lead: replica.clock.lead, target: replica.clock.target, base: replica.clock.base, most: RoomClock.MAX_LEAD,
                   roundTrip: replica.clock.roundTrip, joined: replica.clock.joined, late: replica.clock.late, held: replica.clock.heldCount,
                   offset: replica.clock.offset, samples: replica.clock.offsets.length }),
    /** `applied` messages and predictions the replica holds. */
    held: () => replica.held,
  };
}
