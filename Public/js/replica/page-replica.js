// The room's engine running in the page (docs/wasm.md, "The replica in the page"). It applies
// what the server says it applied (`applied` messages) and this page's own inputs at once
// (predicted with the server's time mapping), draws the frame at the room time each display
// frame stands for, and checks every server frame against its own at the same room time: the
// bytes (version 2) or the decoded frame (version 1). It computes nothing itself; every number
// comes from the Swift engine in WebAssembly. A mismatch puts the page back on server frames
// until the room next comes to rest, where the replica starts again from the server's state.

import { applyChange, GESTURE_STARTS, inputNumbers, Result, TimeMapper } from "./engine.js";
import { fetchScene, knowsScene } from "./scene-bytes.js";
import { WireV2Decoder } from "../wire-v2.js";
import { RoomClock } from "./room-clock.js";
import { Blend } from "./blend.js";
import { atRest, compareFrame } from "./compare.js";
import { ReplicaTelemetry } from "./telemetry.js";

const MAX_LAG = 250;   // how far before a frame's room time a server without marks may place an input

export class PageReplica {
  constructor() {
    this.engine = null;
    this.enabled = true;      // false once the engine failed or trapped (until fresh instances come) or the page stopped
    this.running = false;     // drawing its own pictures (from a start at rest until a mismatch or a stop)
    this.stopped = false;     // the page was destroyed: nothing starts it again
    this.telemetry = new ReplicaTelemetry();   // what window.scrollcast.state.replica reports, never read back
    this.clock = new RoomClock();
    this.mapper = null;       // the server's InputTimeMapper, in the replica's module (engine.js)
    this.session = null;      // {sceneName, order, bodies (v2 texts since the snapshot), viewer}
    this.created = false;
    this.log = [];            // applied messages not yet in the saved base state, in order
    this.predictions = [];    // own inputs the server has not applied yet: {id, clientTime, time, numbers, sentAt}
    this.reducedMotion = false;
    this.rest = null;         // {seq, offset}: the exact offset of the latest frame at rest
    this.lastServerFrame = null;
    this.dirty = false;       // the working state must be rebuilt (base + log + predictions)
    this.latestInputTime = -Infinity;
    this.decoder = new WireV2Decoder();   // the replica's own texts, for drawing its frames
    this.pictureSeq = 0;
    this.confirmed = null;    // the confirmed engine judging the pictures drawn (confirmed-engine.js)
    this.complete = -Infinity;   // room time up to which the room's history is known complete
    this.dropped = new Set();    // test hook: input ids the working state leaves out
    this.onDisable = null;       // called once when the replica stops for good (the page stops asking for `applied`)
    this.blend = new Blend();    // a late own input's correction, drawn away over a few frames
    this.correction = false;     // an own input was applied elsewhere than predicted: blend at the next picture
    this.stamping = true;        // own inputs carry `at` (test hook `unstamped()` turns it off: a known-bad driver)
    this.instantiate = null;     // () => a Promise of another ReplicaEngine of this module (the explorer's, explore.js)
    this.fromState = false;      // the inputs stream starts it from a snapshot's state (stream.js), never at a rest
    this.ownSent = 0;            // the newest id of an input this connection sent, and of one the room applied or refused
    this.ownSettled = 0;
  }

  /** The page state's read-only view of this replica (telemetry.js). */
  report() { return this.telemetry.report({ enabled: this.enabled, running: this.running }); }

  /**
   * The WebAssembly engine arrived (it loads while the page already draws server frames), with
   * the confirmed engine (its own instance) that judges the pictures; also after a trap, fresh.
   */
  attachEngine(engine, confirmed = null, watcher = null) {
    if (this.stopped) return;
    this.engine = engine;
    this.mapper = new TimeMapper(engine);
    this.confirmed = confirmed;
    this.watcher = watcher;
    watcher?.reset(this.clock.roundTrip);   // a snapshot handled before the engine came had its join's round trip
    this.created = false;
    this.enabled = true;      // the telemetry's `error` keeps why it last stopped
    this.running = false;
    this.startIfDue();
  }

  /**
   * Starts the replica from the latest server frame when it shows the room at rest. The page
   * calls this after drawing that frame, so making the scene and starting (the engine's first
   * calls, compiled as they come) never delay a picture. Returns true, and calls `onStart`, when
   * it started.
   */
  startIfDue() {
    const frame = this.lastServerFrame;
    if (this.running || this.fromState || !this.engine || !this.enabled || !this.session || !frame || !atRest(frame)) return false;
    // Not while an input of ours is on its way: the room's rest is from before it (a driver leads
    // the room), and a replica started there has no prediction of it, so it drew the room at
    // that rest until the input came, a lead late (after a trap as a fling left the finger:
    // 13 pictures frozen, up to 1,595 pt off, then a jump).
    if (this.ownSettled < this.ownSent) return false;
    this.log = this.log.filter((m) => m.after >= frame.seq);
    if (!this.created) this.#createScene();
    if (!this.#tryStart(frame)) return false;
    this.onStart?.();
    return true;
  }

  /**
   * The engine failed to load or trapped: server frames from now on, nothing held, and
   * `onDisable` tells the page to stop asking for `applied` messages.
   */
  disable(reason) {
    const was = this.enabled;
    this.enabled = false;
    this.running = false;
    this.telemetry.error = String(reason);
    this.#forget();
    if (was && !this.stopped) this.onDisable?.(reason);
  }

  /** The page is destroyed: the replica draws nothing more and no engine that arrives later starts it. */
  stop() {
    [this.stopped, this.onStart] = [true, null];
    this.disable("the page stopped");
  }

  /** `applied` messages and predictions held (none once disabled). */
  get held() { return this.log.length + this.predictions.length; }

  #forget() {
    this.log = [];
    this.predictions = [];
    this.confirmed?.stop();
    this.watcher?.stop();
    this.blend.reset();
  }

  /** A `beat` (docs/protocol.md, "The complete history"), arrived at page time `now`. */
  beat(message, now) {
    this.clock.frameArrived(message.t, now);   // the room's present: a clock right even in a room at rest
    this.#marked(message.complete, now, true, null);   // a beat: the room moves on as it did
  }

  #marked(mark, now, said, moving) {
    if (!Number.isFinite(mark)) return;
    this.watcher?.marked(mark, now, said, moving);
    const marks = this.watcher?.marks === true;   // the server tells the complete history: watchers draw behind it
    this.telemetry.marks = marks;
    if (marks) this.historyComplete(mark);
  }

  /**
   * A snapshot (its frame comes next through `serverFrame`), `roundTrip` ms after the join went
   * out. `order` is the page's row order (row ids per section), which the page keeps current
   * with every `rowMoved`: the replica reads it where it starts, and moves no row itself.
   */
  snapshot(message, roundTrip, order) {
    this.session = { sceneName: message.sceneName ?? "demo", viewer: message.viewer, order,
                     bodies: message.textsBody ? [message.textsBody.slice()] : [] };
    this.#forget();
    this.reducedMotion = false;
    this.mapper?.reset();
    this.clock.reset();
    this.watcher?.reset(roundTrip);
    this.clock.joinRoundTrip(roundTrip);
    this.running = false;
    this.created = false;
    this.ownSent = this.ownSettled = 0;   // a new connection: what the last one sent is applied or gone
  }

  /** After `resumed`: what was applied meanwhile is unknown, so start again at the next rest. */
  resumed(message) {
    if (this.session) this.session.viewer = message.viewer;
    this.#forget();
    this.watcher?.reset();
    this.running = false;
    this.ownSent = this.ownSettled = 0;
  }

  texts(body) {
    if (!this.session) return;
    this.session.bodies.push(body.slice());
    if (this.created) this.#call(() => this.engine.serverTexts(body, false));
  }

  /** An `applied` message, arrived at page time `now`. */
  applied(message, now) {
    // How the room is (kept, not held) serves a start after a trap; the changes need an engine.
    if (message.kind === "reducedMotion") this.reducedMotion = message.on === true;
    if (message.kind === "rest") this.rest = { seq: message.after, offset: message.offset };
    if (message.viewer === this.session?.viewer && message.cause === "input") this.ownSettled = Math.max(this.ownSettled, message.id);
    if (!this.enabled) return;
    this.clock.frameArrived(message.t, now);
    if (message.cause === "state") return;
    this.telemetry.applied += 1;
    this.log.push(message);
    this.confirmed?.applied(message);
    this.watcher?.applied(message);
    if (message.cause === "input" && message.viewer === this.session?.viewer) {
      const index = this.predictions.findIndex((p) => p.id === message.id);
      if (index >= 0) {
        const [own] = this.predictions.splice(index, 1);
        this.telemetry.predictionApplied(own.id, message.t);
        this.clock.inputApplied(own.lead, own.time, message.t);
        this.mapper?.confirm(own.clientTime, message.t);
        if (message.t !== own.time) this.correction = true;
        // Later stamped predictions stay at their stamps (never before this one); unstamped ones
        // keep their intervals from the server's time.
        for (const later of this.predictions.slice(index)) {
          later.time = later.stamped ? Math.max(later.time, message.t) : message.t + (later.clientTime - own.clientTime);
        }
      }
    }
    this.dirty = true;
    if (typeof message.complete === "number") this.#marked(message.complete, now, true, true);
  }

  /** The server refused our input `id`: it was never applied. */
  refused(id) {
    this.ownSettled = Math.max(this.ownSettled, id ?? 0);
    const before = this.predictions.length;
    this.predictions = this.predictions.filter((p) => p.id !== id);
    if (this.predictions.length !== before) this.dirty = true;
  }

  /**
   * The room time to stamp this page's input of an event at page time `pageTime` with (its `at`):
   * the driver's clock then; null when the replica does not draw.
   */
  stamp(pageTime) {
    return this.running && this.stamping ? this.clock.inputStamp(pageTime) : null;
  }

  /**
   * This page sent `message` (an input) at page time `now`: apply it at once, at the room time
   * the server is expected to give it (its `at` when stamped). Returns true when the replica drew it.
   */
  ownInput(message, now) {
    this.ownSent = Math.max(this.ownSent, message.id);
    if (!this.running) return false;
    const numbers = inputNumbers(message);
    if (!numbers) return false;
    this.clock.inputSent(Number.isFinite(message.at) ? message.id : null, now);
    const clock = this.clock.displayTime(now);
    if (clock === null) return false;
    // The server's present is never before the last time it applied; nor are our own inputs.
    const last = this.predictions.length ? this.predictions[this.predictions.length - 1].time : -Infinity;
    // Stamped, it reaches the room before `at` (the lead): the room's present is at most the arrival clock's.
    const stamped = Number.isFinite(message.at);
    const present = stamped ? this.clock.arrivalTime(now) : Math.max(clock, this.latestInputTime, last);
    const floor = Math.max(this.latestInputTime, last);
    const mapped = this.#call(() => this.mapper.map(message.t, present, floor, GESTURE_STARTS.has(message.kind), stamped ? message.at : null));
    if (mapped === null) return false;   // t went backwards (the server refuses it) or the engine trapped
    const time = Math.max(last, mapped);
    const own = { id: message.id, clientTime: message.t, time, numbers, sentAt: now, stamped, lead: this.clock.lead };
    this.predictions.push(own);
    this.telemetry.predictionMade({ id: message.id, kind: message.kind, at: now, stamp: message.at ?? null, clock, lead: this.clock.lead, latest: this.latestInputTime, time });
    if (!this.dirty) this.#call(() => this.#applyPrediction(own));
    if (!this.running) return false;   // the engine trapped
    this.telemetry.predicted += 1;
    return true;
  }

  /**
   * A server frame (`frame.wire` its version-2 bytes, if any) arrived at page time `now`. Returns
   * "waiting" (replica not running; draw the server frame, then call `startIfDue`), "identical" or
   * "mismatch".
   */
  serverFrame(frame, now) {
    this.clock.frameArrived(frame.t, now);
    this.lastServerFrame = frame;
    if (!this.enabled || !this.engine) return "waiting";
    // Not running: only what follows the next frame at rest (where it starts) can be needed.
    if (!this.running) { this.log = this.log.filter((m) => m.after >= frame.seq); return "waiting"; }
    let verdict;
    try {
      this.engine.load();
      const later = [];
      for (const message of this.log) {
        if (message.after < frame.seq) this.#applyApplied(message); else later.push(message);
      }
      this.log = later;
      this.engine.save();
      verdict = compareFrame(this.engine, this.decoder, this.telemetry, frame);
      if (verdict === "mismatch") { this.running = false; this.#forget(); }
      this.#rebuildOnTopOfBase();
    } catch (error) {
      this.disable(error);
      return "mismatch";
    }
    this.#marked(frame.t, now, false, frame.animating === true);   // a mark when the server tells marks; else complete to t − MAX_LAG
    this.historyComplete(frame.t - MAX_LAG - 1);
    return verdict;
  }

  /** The replica's frame at the room time page time `now` stands for, decoded; null when not running. */
  frameAt(now) {
    if (!this.running) return null;
    // A page that has not driven draws what it knows, when the server says how far that goes.
    const watched = this.clock.driving ? null : this.#call(() => this.watcher?.frameAt(now));
    if (watched) {
      this.lastDrawTime = this.watcher.lastTime;
      this.telemetry.drawn += 1;
      return watched;
    }
    const time = this.clock.displayTime(now);
    if (time === null) return null;
    try {
      if (this.dirty) { this.engine.load(); this.#rebuildOnTopOfBase(); }
      this.#blendCorrection();
      // Never before a picture the watcher drew (a page that starts driving goes on from there).
      const drawTime = Math.max(time, this.latestInputTime, this.watcher?.lastTime ?? -Infinity);
      this.lastDrawTime = drawTime;
      this.pictureSeq += 1;
      const result = this.engine.frame(drawTime, this.pictureSeq, 0);
      this.lastEngineOffset = result.contentOffset;
      if (result.texts) this.decoder.decode(result.texts.slice().buffer);
      const frame = this.blend.apply(this.decoder.decode(result.bytes.slice().buffer));
      this.telemetry.drawn += 1;
      return frame;
    } catch (error) {
      this.disable(error);
      return null;
    }
  }

  /** An own input applied elsewhere than predicted moved the picture: the blend draws that away. */
  #blendCorrection() {
    if (!this.correction) return;
    this.correction = false;
    const t = this.lastDrawTime;
    if (!(t >= this.latestInputTime) || !Number.isFinite(this.lastEngineOffset)) return;
    const result = this.engine.frame(t, 0, 0);
    // Texts the engine now counts sent: a later picture names them, and the decoder without them
    // throws, which stops the replica as a trap would (a driver's fling far down the table, in
    // either stream).
    if (result.texts) this.decoder.decode(result.texts.slice().buffer);
    this.blend.add(this.lastEngineOffset - result.contentOffset);
  }

  /**
   * Every input at or before room time `h` has been sent to this page (a frame `MAX_LAG` later,
   * or the server's complete-history marker): the confirmed engine judges the pictures up to it.
   */
  historyComplete(h) {
    if (h > this.complete) { this.complete = h; this.confirmed?.completeUpTo(h); }
  }
  /** Display frame `n` drew the replica's picture at room time `t` (the confirmed engine judges it). */
  pictureDrawn(n, t) { this.confirmed?.picture(n, t); }
  /** The picture numbers of own frames go on from the server frame shown before them. */
  continueNumbering(seq) { this.pictureSeq = Math.max(this.pictureSeq, seq); }

  #createScene() {
    const name = this.session.sceneName, current = () => this.session?.sceneName === name;
    const code = this.#call(() => this.engine.create(name));
    // A file or uploaded scene: its bytes come from the server once (scene-bytes.js), server frames meanwhile.
    if (code === Result.noScene && !knowsScene(name)) {
      return void fetchScene(name).then(() => current() && this.startIfDue(),
                                        (error) => current() && this.disable(`no replica of scene ${name}: ${error}`));
    }
    if (code !== Result.applied) return this.disable(`no replica of scene ${name}`);
    this.session.bodies.forEach((body, i) => this.#call(() => this.engine.serverTexts(body, i === 0)));
    this.decoder.reset();
    this.created = true;
  }

  #tryStart(frame) {
    if (!this.created || !atRest(frame) || !this.enabled) return false;
    // The exact resting offset when the server told it (frames round it to 0.01 pt).
    const offset = this.rest?.seq === frame.seq ? this.rest.offset : frame.offset;
    const ok = this.#call(() => this.engine.restore(this.session.order, frame.viewport, offset));
    if (ok !== Result.applied) return false;
    this.#call(() => this.engine.setReducedMotion(this.reducedMotion));
    this.#call(() => this.engine.nameInput(frame.input ?? null));
    this.#call(() => this.engine.save());
    this.latestInputTime = frame.t;
    const rest = { sceneName: this.session.sceneName, order: this.session.order, viewport: frame.viewport,
                   offset, reducedMotion: this.reducedMotion, input: frame.input ?? null, t: frame.t };
    this.confirmed?.start(rest);
    this.watcher?.start(rest);
    this.complete = -Infinity;
    this.running = true;
    this.telemetry.starts += 1;
    this.dirty = true;
    return true;
  }

  /** The working state: the base (just loaded) plus the log and our predictions. */
  #rebuildOnTopOfBase() {
    for (const message of this.log) if (!this.#isDropped(message)) this.#applyApplied(message);
    for (const own of this.predictions) this.#applyPrediction(own);
    this.dirty = false;
  }

  #applyApplied(message) {
    applyChange(this.engine, message);
    this.latestInputTime = Math.max(this.latestInputTime, message.t);
  }

  #isDropped(message) {
    return this.dropped.size > 0 && message.viewer === this.session?.viewer && this.dropped.has(message.id);
  }

  #applyPrediction(own) {
    if (this.dropped.has(own.id)) return;
    const { code } = this.engine.apply(own.numbers, own.id, own.time, this.session.viewer);
    if (code < 0) this.telemetry.predictionRefused(own.id, code, own.time);
    if (code >= 0) this.latestInputTime = Math.max(this.latestInputTime, own.time);
  }

  #call(f) {
    try {
      return f();
    } catch (error) {
      this.disable(error);
      return null;
    }
  }
}
