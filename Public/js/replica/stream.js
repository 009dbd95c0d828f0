// The inputs stream in the page (docs/protocol.md, "The inputs stream"; the page's `?stream=inputs`):
// the replica starts from the snapshot's engine state at its room time, applies the room's changes
// from `batch`es, and checks each `beat`'s frame hash against its own frame at the beat's time.
// A mismatch means its state is wrong: it stops drawing its own pictures (the last picture a beat
// proved right stays on screen), asks for a keyframe and starts again from it. A file or uploaded
// scene's bytes are fetched first (GET /scenes/NAME). Refused (4100; 4101 from older servers),
// moved to frames by the server, or unable to start, the page takes the frames stream as before,
// and says so (state.replica.stream, fallbackReason; the console).

import { applyChange, Result } from "./engine.js";
import { fetchScene, knowsScene } from "./scene-bytes.js";

// How far apart the marks can come while the room moves (docs/protocol.md, "`beat`"): a beat goes
// with the first frame at least 250 ms after the previous one, frames come a period apart
// (1000/60 ms, the server's default), and the frame timer may be up to 1 ms late. While someone
// drives, batches bring marks more often; with nobody driving, only beats do. A watcher's clock
// stays this much (and the link's lateness) behind the latest mark, so it never waits at one.
const MARK_GAP_MS = 250 + 1000 / 60 + 1;

/** Whether the page asks for the inputs stream (`?stream=inputs`). */
export function streamFromLocation(search = window.location.search) {
  return new URLSearchParams(search).get("stream") === "inputs";
}

/** Test hook: `?engine=N` names engine version N in the join instead of the module's (refused 4100). */
function engineFromLocation(search = window.location.search) {
  const asked = new URLSearchParams(search).get("engine");
  return asked !== null && /^\d+$/.test(asked) ? Number(asked) : null;
}

// The batch period the page asks for unless told otherwise: the beats' own period. A watcher
// draws the marks' gap (MARK_GAP_MS) behind the latest mark whatever the period, as each beat
// takes the waiting changes with it, so batches a frame apart would show it nothing sooner; they
// would only cost the server a write per viewer per frame while a finger moves (docs/benchmarks.md,
// "Inputs stream"). A driver draws its own inputs at once (predicted) either way.
export const PAGE_BATCH_MS = 250;

/**
 * `?batch=N`: ask for the room's batches every N ms (`batchMs` in the join, 1–1000; the server
 * refuses anything else with close 1008, and the page then says so; 1 gets one frame period, the
 * server's floor). Without it, PAGE_BATCH_MS.
 */
export function batchFromLocation(search = window.location.search) {
  const asked = new URLSearchParams(search).get("batch");
  if (asked === null) return PAGE_BATCH_MS;
  return /^-?\d+(\.\d+)?$/.test(asked) ? Number(asked) : null;
}

/** The bytes of RFC 4648 base64 text. */
function fromBase64(text) {
  const binary = atob(text);
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i += 1) bytes[i] = binary.charCodeAt(i);
  return bytes;
}

export class InputsStream {
  /** `replica` (PageReplica), `connection` (Connection, joined only after `join()`), `picture` (PagePicture). */
  constructor({ replica, connection, picture }) {
    Object.assign(this, { replica, connection, picture });
    this.awaiting = false;   // a keyframe asked for has not come yet
    this.lastGood = null;    // the replica's frame at the last beat that matched, decoded (held after a mismatch)
    this.pending = null;     // a snapshot waiting for its scene's bytes, and the batches and beats after it
  }

  get telemetry() { return this.replica.telemetry; }

  /** Replicating from the room's changes now (a snapshot with `replica` started it). */
  get using() { return this.telemetry.stream === "inputs"; }

  /**
   * Before the first join: waits for the engine, whose version the join names. Without one the
   * page takes frames. Resolves once the connection may start.
   */
  async join() {
    const ready = await this.replica.ready;
    if (!ready || !this.replica.engine) return this.fallback("the replica's engine did not load", false);
    let engine;
    try {
      engine = engineFromLocation() ?? this.replica.engine.engineVersion();
    } catch (error) {
      return this.fallback(`the engine has no version (${error})`, false);
    }
    this.connection.stream = { engine, batchMs: batchFromLocation() };
    this.replica.fromState = true;   // started from the snapshot's state, never from a frame at rest
    return undefined;
  }

  /** The connection closed: refused with 4100 or 4101, the next join takes frames. */
  closed(status) {
    if (status.closeCode === 4100 || status.closeCode === 4101) {
      this.fallback(`refused ${status.closeCode}: ${status.closeReason || "no reason given"}`, false);
    }
  }

  /**
   * Back to the frames stream for the rest of the page: counted, said in the state and the
   * console. `rejoin`: this connection took the inputs stream, so join again without it.
   */
  fallback(reason, rejoin) {
    if (!this.connection.stream && this.telemetry.fallbacks > 0) return undefined;
    const t = this.telemetry;
    this.connection.stream = null;
    this.replica.fromState = false;
    if (this.replica.watcher) this.replica.watcher.clock.gap = 0;   // frames bring marks every frame
    this.awaiting = false;
    t.stream = "frames";
    t.fallbacks += 1;
    t.fallbackReason = reason;
    console.warn(`scrollcast: inputs stream: ${reason}; taking the frames stream`);
    if (rejoin && this.connection.isOpen) this.connection.socket.close(4001, "joining again for frames");
    return undefined;
  }

  /** A snapshot (after PageRoom took it): with `replica`, the replica starts from its state. */
  snapshot(message, now) {
    if (!this.connection.stream) return;
    if (!message.replica) {
      this.fallback("the server moved this page to frames", false);
      return;
    }
    this.#start(message.replica, now);
  }

  #start(start, now) {
    const r = this.replica;
    if (!r.engine || !r.enabled || !r.session) return this.fallback("no replica to start", true);
    let state;
    try {
      state = fromBase64(start.state);
      const created = r.engine.create(r.session.sceneName);
      if (created === Result.noScene && !knowsScene(r.session.sceneName)) return this.#fetchThenStart(start, now);
      if (created !== Result.applied) return this.fallback(`no replica of scene ${r.session.sceneName}`, true);
      if (r.engine.restoreState(state) !== Result.applied) return this.fallback("the engine refused the snapshot's state", true);
      r.engine.nameInput(start.input ?? null);
      r.engine.save();
    } catch (error) {
      return this.fallback(`the snapshot's state could not be read (${error})`, true);
    }
    r.created = true;
    r.decoder.reset();
    r.log = [];
    r.predictions = [];
    r.latestInputTime = start.t;
    const rest = { sceneName: r.session.sceneName, state, input: start.input ?? null, t: start.t };
    r.confirmed?.start(rest);
    if (r.watcher?.start(rest)) {
      r.watcher.clock.gap = MARK_GAP_MS;
      r.watcher.clock.from = start.t;   // the state stands there: a picture before it cannot be the room's
    }
    r.complete = -Infinity;
    r.running = true;
    r.dirty = true;
    r.telemetry.starts += 1;
    r.beat({ t: start.t, complete: start.t }, now);   // the state stands at the room's mark
    this.telemetry.stream = "inputs";
    this.awaiting = false;
    this.lastGood = null;
    r.onStart?.();
    return undefined;
  }

  /**
   * A file or uploaded scene: its bytes come from the server once (scene-bytes.js). The room's
   * batches and beats wait meanwhile, then follow the snapshot's state in the order they came.
   */
  #fetchThenStart(start, now) {
    const session = this.replica.session;
    const pending = { start, now, held: [] };
    this.pending = pending;   // a later snapshot replaces this one and what it held
    fetchScene(session.sceneName).then(() => {
      if (this.pending !== pending) return;
      this.pending = null;
      if (this.replica.session !== session) return;
      this.#start(start, now);
      for (const [type, message, at] of pending.held) type === "batch" ? this.batch(message, at) : this.beat(message);
    }, (error) => {
      if (this.pending !== pending) return;
      this.pending = null;
      this.fallback(`no replica of scene ${session.sceneName}: ${error}`, true);
    });
    return undefined;
  }

  /** After `resumed` in this stream: the state stays; the missed changes come in a batch. True when handled here. */
  resumed(message) {
    if (!this.using) return false;
    const r = this.replica;
    if (r.session) r.session.viewer = message.viewer;
    r.predictions = [];   // those the room applied come in the batch; the others were lost with the link
    r.dirty = true;
    if (this.awaiting) this.#askKeyframe("the keyframe asked for before the cut");
    return true;
  }

  /** A `batch`: its changes go to the replica as `applied` messages, the last with the batch's mark. */
  batch(message, now) {
    if (this.pending) return void this.pending.held.push(["batch", message, now]);
    if (!this.using || !Array.isArray(message.applied)) return;
    this.telemetry.batches += 1;
    const last = message.applied.length - 1;
    message.applied.forEach((change, i) => {
      const applied = { ...change, type: "applied" };
      if (i === last) applied.complete = message.complete;
      this.replica.applied(applied, now);
    });
  }

  /**
   * A beat with its hash (after the replica took its time and mark): the confirmed state takes
   * every change held (all are at or before the beat's mark) and its frame at `t` must hash the same.
   */
  beat(message) {
    if (this.pending) return void this.pending.held.push(["beat", message]);
    if (!this.using || typeof message.hash !== "string") return;
    // No frame comes to wake the picture in this stream (after a resume its loop has stopped): the beat does.
    this.picture.schedule();
    const r = this.replica;
    if (!r.running) {
      this.telemetry.beatsUnchecked += 1;
      // A fresh engine after a trap, or a keyframe lost: start again from the room's state.
      if (!this.awaiting && r.enabled && r.engine) this.#askKeyframe(`the replica is not running (${r.telemetry.error ?? "no error"})`);
      return;
    }
    let hash;
    try {
      r.engine.load();
      for (const change of r.log) {
        applyChange(r.engine, change);
        r.latestInputTime = Math.max(r.latestInputTime, change.t);
      }
      r.log = [];
      r.engine.save();
      hash = r.engine.frameHash(message.t);
      if (hash === message.hash) this.lastGood = this.#frame(message.t);
    } catch (error) {
      r.disable(error);
      return;
    }
    r.dirty = true;
    const t = this.telemetry;
    t.beatsChecked += 1;
    if (hash === message.hash) {
      t.beatsMatched += 1;
      return;
    }
    t.mismatches += 1;
    t.lastMismatch = { t: message.t, hash, expected: message.hash };
    r.running = false;
    r.log = [];
    r.predictions = [];
    r.confirmed?.stop();
    r.watcher?.stop();
    // The picture drawn in place of the replica's: the last one a beat proved right.
    if (this.lastGood) r.lastServerFrame = this.lastGood;
    this.#askKeyframe(`beat at ${message.t} ms: hash ${hash}, the room's ${message.hash}`);
    this.picture.schedule();
  }

  /** The replica's confirmed frame at room time `t`, decoded (its texts through the replica's decoder). */
  #frame(t) {
    const r = this.replica;
    const result = r.engine.frame(t, r.pictureSeq, 0);
    if (result.texts) r.decoder.decode(result.texts.slice().buffer);
    return r.decoder.decode(result.bytes.slice().buffer);
  }

  #askKeyframe(why) {
    if (!this.connection.send({ type: "keyframe" })) return;
    this.awaiting = true;
    this.telemetry.keyframes += 1;
    this.telemetry.keyframeReason = why;
    console.warn(`scrollcast: inputs stream: ${why}; asking for a keyframe`);
  }
}
