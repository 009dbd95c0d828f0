// A driver's correction, blended (docs/wasm.md, "The clock"): when the room applies one of this
// page's inputs elsewhere than predicted (it arrived late), the replica's picture jumps to the
// room's. The page draws the difference away over five display frames instead of at once: the
// content is shifted by a residual that shrinks by a fifth of itself (as it was) each frame. Not
// capped at 2 pt a frame: a large correction would then stay wrong for many frames (seen: 45
// display frames for one late input of a first drag on 4g).

const BLEND_FRAMES = 5;

export class Blend {
  constructor() { this.reset(); }

  reset() {
    this.residual = 0;   // pt the drawn content is shifted from the engine's picture
    this.step = 0;
  }

  /** The engine's picture moved by `delta` pt at the same room time (old minus new offset). */
  add(delta) {
    if (!Number.isFinite(delta) || delta === 0) return;
    this.residual += delta;
    this.step = Math.abs(this.residual) / BLEND_FRAMES;
  }

  /** One display frame: `frame` (decoded, the engine's picture) drawn with what is left of the residual. */
  apply(frame) {
    if (this.residual === 0) return frame;
    this.residual -= Math.sign(this.residual) * Math.min(Math.abs(this.residual), this.step);
    if (Math.abs(this.residual) < 1e-6) this.residual = 0;
    const r = this.residual;
    return { ...frame, offset: frame.offset + r, rows: (frame.rows ?? []).map((row) => ({ ...row, y: row.y - r })) };
  }
}
