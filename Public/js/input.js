// Raw input from the canvas to the server: pointer events (mouse, pen, touch) with their own
// timestamps and coalesced samples, wheel deltas as the browser gave them, and scroll keys.
// No physics here: positions are only mapped into the room's logical viewport.

import { wheelMode } from "./input-names.js";

const KEY_COMMANDS = {
  ArrowUp: "arrowUp",
  ArrowDown: "arrowDown",
  PageUp: "pageUp",
  PageDown: "pageDown",
  Home: "home",
  End: "end",
};

/** The protocol key command for a keydown, or null when the key is not a scroll key. */
export function keyCommand(event) {
  if (event.altKey || event.ctrlKey || event.metaKey) return null;
  if (event.key === " " || event.code === "Space") return event.shiftKey ? "shiftSpace" : "space";
  return KEY_COMMANDS[event.key] ?? null;
}

// Stay under the server's token bucket (240/s sustained, bursts of 120) with room to spare
// for network jitter bunching our messages together on arrival.
const BUCKET_CAPACITY = 80;
const BUCKET_RATE_PER_MS = 0.2;

/**
 * Numbers inputs, keeps their timestamps from going backwards, paces them under the server's
 * rate limit (merging surplus moves and wheel deltas, never dropping a down, up or key) and
 * remembers when each id was sent so the overlay can measure input-to-frame latency.
 */
export class InputSender {
  /** `transmit(message)` sends one message and returns false when it could not; `stamp(t)` gives the
   *  room time (`at`, docs/protocol.md) for an input of an event at page time `t` sent now, or null. */
  constructor({ transmit, now = () => performance.now(), stamp = () => null }) {
    this.transmit = transmit;
    this.stamp = stamp;
    this.now = now;
    this.nextId = 1;
    this.lastT = 0;
    this.tokens = BUCKET_CAPACITY;
    this.tokensAt = now();
    this.pending = null;
    this.flushTimer = null;
    /** id → performance.now() when sent. */
    this.sentAt = new Map();
    this.sentCount = 0;
  }

  /** Sends at once (flushing any merged input first). Returns the id, or null if not sent. */
  sendNow(kind, fields, t) {
    this.flushPending();
    this.refill();
    this.tokens = Math.max(this.tokens - 1, -BUCKET_CAPACITY);
    return this.emit(kind, fields, t);
  }

  /** A pointer move: sent now if the budget allows (superseding any merged one), else kept as the
   *  newest position for the next paced send. */
  sendMove(fields, t) {
    this.refill();
    if (this.pending && this.pending.kind !== "pointerMove") this.flushPending();
    if (this.tokens >= 1) {
      this.discardPending();
      this.tokens -= 1;
      return this.emit("pointerMove", fields, t);
    }
    this.pending = { kind: "pointerMove", fields, t };
    this.scheduleFlush();
    return null;
  }

  /** Wheel deltas: sent now if the budget allows, else summed with others of the same mode. */
  sendWheel(fields, t) {
    this.refill();
    if (this.pending && (this.pending.kind !== "wheel" || this.pending.fields.mode !== fields.mode)) this.flushPending();
    if (this.pending) {
      this.pending.fields = { dx: this.pending.fields.dx + fields.dx, dy: this.pending.fields.dy + fields.dy, mode: fields.mode };
      this.pending.t = t;
    } else {
      this.pending = { kind: "wheel", fields: { ...fields }, t };
    }
    if (this.tokens >= 1) {
      const id = this.nextId;
      this.flushPending();
      return this.nextId > id ? id : null;
    }
    this.scheduleFlush();
    return null;
  }

  /** Drops a merged move (e.g. when its gesture was refused). */
  discardPending() {
    this.pending = null;
    clearTimeout(this.flushTimer);
    this.flushTimer = null;
  }

  /** Forgets send times up to `id`: a frame naming `id` has covered them. */
  forgetThrough(id) {
    for (const key of this.sentAt.keys()) {
      if (key <= id) this.sentAt.delete(key);
      else break;
    }
  }

  refill() {
    const now = this.now();
    this.tokens = Math.min(BUCKET_CAPACITY, this.tokens + (now - this.tokensAt) * BUCKET_RATE_PER_MS);
    this.tokensAt = now;
  }

  scheduleFlush() {
    if (this.flushTimer !== null) return;
    const wait = Math.max(1, Math.ceil((1 - this.tokens) / BUCKET_RATE_PER_MS));
    this.flushTimer = setTimeout(() => {
      this.flushTimer = null;
      this.refill();
      this.flushPending();
    }, wait);
  }

  flushPending() {
    clearTimeout(this.flushTimer);
    this.flushTimer = null;
    const pending = this.pending;
    if (!pending) return;
    this.pending = null;
    this.tokens -= 1;
    this.emit(pending.kind, pending.fields, pending.t);
  }

  emit(kind, fields, t) {
    // Timestamps from different sources (coalesced samples, keys, wheel) must never go backwards.
    const stamp = Math.max(this.lastT, Number.isFinite(t) ? t : this.now());
    const id = this.nextId;
    const message = { type: "input", id, t: Math.round(stamp * 1000) / 1000, kind, ...fields };
    const at = this.stamp(stamp);
    if (Number.isFinite(at)) message.at = at;
    if (!this.transmit(message)) return null;
    this.nextId += 1;
    this.lastT = stamp;
    this.sentAt.set(id, this.now());
    // Bound the map: ids never answered (refused, superseded) must not pile up.
    if (this.sentAt.size > 2000) this.forgetThrough(id - 1000);
    this.sentCount += 1;
    return id;
  }
}

/**
 * Listens to the canvas and feeds `sender`. `toLogical(clientX, clientY)` maps to viewport pt.
 * Every listener goes when `signal` (an AbortSignal) aborts: the page's destroy().
 * Returns an object with `refused(id)` so a refused gesture stops streaming its moves, and
 * `abandonGesture()` / `streaming()` for a page that changes where its input goes.
 */
export function attachInput({ canvas, sender, toLogical, signal, onUserInput = () => {} }) {
  let activePointer = null;   // pointerId of the gesture we are streaming
  let gestureDownId = null;   // input id of its pointerDown
  let gestureRefused = false;
  const listen = (type, listener, options = {}) => canvas.addEventListener(type, listener, { ...options, signal });

  const point = (e) => {
    const p = toLogical(e.clientX, e.clientY);
    return { x: round2(p.x), y: round2(p.y) };
  };

  listen("pointerdown", (e) => {
    if (activePointer !== null) return;              // one finger drives; others are ignored
    if (e.pointerType === "mouse" && e.button !== 0) return;
    // No preventDefault: the default focuses the canvas (for keys) without a keyboard focus ring.
    try { canvas.setPointerCapture(e.pointerId); } catch { /* pointer already gone */ }
    activePointer = e.pointerId;
    gestureRefused = false;
    gestureDownId = sender.sendNow("pointerDown", point(e), e.timeStamp);
    onUserInput();
  });

  listen("pointermove", (e) => {
    if (e.pointerId !== activePointer || gestureRefused) return;
    const samples = typeof e.getCoalescedEvents === "function" ? e.getCoalescedEvents() : [];
    for (const sample of samples.length ? samples : [e]) sender.sendMove(point(sample), sample.timeStamp);
  });

  const finish = (e, kind) => {
    if (e.pointerId !== activePointer) return;
    activePointer = null;
    if (gestureRefused) { sender.discardPending(); return; }
    if (kind === "pointerUp") sender.sendNow("pointerUp", point(e), e.timeStamp);
    else sender.sendNow("pointerCancel", {}, e.timeStamp);
  };
  listen("pointerup", (e) => finish(e, "pointerUp"));
  listen("pointercancel", (e) => finish(e, "pointerCancel"));
  listen("lostpointercapture", (e) => finish(e, "pointerCancel"));

  listen("wheel", (e) => {
    e.preventDefault();
    if (e.deltaX === 0 && e.deltaY === 0) return;
    sender.sendWheel({ dx: e.deltaX, dy: e.deltaY, mode: wheelMode(e.deltaMode) }, e.timeStamp);
    onUserInput();
  }, { passive: false });

  listen("keydown", (e) => {
    const key = keyCommand(e);
    if (!key) return;
    e.preventDefault();
    sender.sendNow("key", { key }, e.timeStamp);
    onUserInput();
  });

  // Long presses on touch screens would otherwise open a context menu.
  listen("contextmenu", (e) => e.preventDefault());

  const abandonGesture = () => {
    if (activePointer !== null) gestureRefused = true;
    sender.discardPending();
  };

  return {
    /** A new connection knows nothing of a gesture begun on the old one: stop streaming it. */
    connectionReset: abandonGesture,
    /** The rest of the gesture in progress, if any, is sent nowhere (explore.js: it changed tables). */
    abandonGesture,
    /** Whether a gesture's pointer events are being sent now. */
    streaming: () => activePointer !== null && !gestureRefused,
    refused(id) {
      if (id !== null && id === gestureDownId && activePointer !== null) {
        gestureRefused = true;
        sender.discardPending();
      }
    },
  };
}

function round2(v) {
  return Math.round(v * 100) / 100;
}
