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
