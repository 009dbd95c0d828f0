// Rolling measurements for the overlay: frames drawn per second and input-to-frame latency.

import { nearestRank } from "./measure/quantile.js";

/** Samples (time, value) kept for the last `windowMs` milliseconds. */
export class RollingWindow {
  constructor(windowMs) {
    this.windowMs = windowMs;
    this.times = [];
    this.values = [];
  }

  add(now, value) {
    this.times.push(now);
    this.values.push(value);
    this.trim(now);
  }

  trim(now) {
    let drop = 0;
    while (drop < this.times.length && now - this.times[drop] > this.windowMs) drop += 1;
    if (drop) {
      this.times.splice(0, drop);
      this.values.splice(0, drop);
    }
  }

  /** Samples per second over the window. */
  rate(now) {
    this.trim(now);
    if (this.times.length < 2) return 0;
    const span = Math.max(now - this.times[0], 1);
    return ((this.times.length - 1) * 1000) / span;
  }

  /** The q-quantile (0…1) of the values in the window, or null when empty (nearest rank). */
  quantile(now, q) {
    this.trim(now);
    return nearestRank(this.values, q);
  }
}

const LATENCY_WINDOW_MS = 5000;

/**
 * The overlay's figures, kept in `state` (fps, latency, measures) and shown: frames
 * drawn per second, this driver's input-to-frame latency, the page's measures and the replica's
 * counts.
 */
export class PageStats {
  constructor({ state, sender, controls, measures }) {
    this.state = state;
    this.sender = sender;
    this.controls = controls;
    this.measures = measures;
    this.fpsWindow = new RollingWindow(2000);
    this.latencyWindow = new RollingWindow(LATENCY_WINDOW_MS);
  }

  /** A server frame was drawn at `now`: counts it, and times our own input it names. */
  frameDrawn(frame, now) {
    this.fpsWindow.add(now, 1);
    const applied = frame.input;
    if (!applied || applied.viewer !== this.state.viewer || typeof applied.id !== "number") return;
    const sentAt = this.sender.sentAt.get(applied.id);
    this.sender.forgetThrough(applied.id);
    if (sentAt === undefined) return;
    this.latencyWindow.add(now, now - sentAt);
  }

  /** Recomputes the figures and shows them (twice a second). */
  update() {
    const { state, measures } = this;
    const now = performance.now();
    state.fps = this.fpsWindow.rate(now);
    state.latency = {
      median: this.latencyWindow.quantile(now, 0.5),
      p99: this.latencyWindow.quantile(now, 0.99),
      samples: this.latencyWindow.values.length,
    };
    this.controls.setStats({ fps: state.fps, median: state.latency.median, p99: state.latency.p99 });
    // One computation gives both the state and the overlay's text, so a reader of either sees the other.
    state.measures = measures.update();
    measures.show(document.getElementById("judder"), document.getElementById("photon"));
    const r = state.replica;
    document.getElementById("replica-stats").textContent = !r.enabled ? `replica off (${r.error})`
      : r.stream === "inputs"
        ? `replica ${r.running ? "on" : "waiting"}, inputs stream: ${r.beatsMatched}/${r.beatsChecked} beats matched, ${r.keyframes} keyframes`
        : `replica ${r.running ? "on" : "waiting"}: ${r.identical}/${r.compared} identical, ${r.mismatches} mismatches`
          + (r.fallbacks ? `; frames stream (${r.fallbackReason})` : "");
  }
}
