// The driver's pointer inputs sent, for input-to-picture (docs/measures.md): the last
// SENT_INPUTS_KEPT of them, without those the server refused (no picture will ever show them).

/** Pointer inputs kept: input-to-picture covers the last this many. */
export const SENT_INPUTS_KEPT = 500;

/** True for the input kinds measured: the pointer's down, moves, up and cancel. */
export function isPointerInput(kind) {
  return typeof kind === "string" && kind.startsWith("pointer");
}

export class SentInputs {
  constructor(capacity = SENT_INPUTS_KEPT) {
    this.capacity = capacity;
    this.list = [];   // {id, t}, ids increasing
  }

  /** An input was sent: `id`, its event timestamp `t` (performance.now() clock) and `kind`. */
  sent(id, t, kind) {
    if (!isPointerInput(kind)) return;
    this.list.push({ id, t });
    if (this.list.length > this.capacity) this.list.shift();
  }

  /** The server refused input `id`: no picture will show it. */
  refused(id) {
    const i = this.list.findIndex((s) => s.id === id);
    if (i >= 0) this.list.splice(i, 1);
  }

  /** A new connection: its ids start again, so the old ones cannot be matched. */
  reset() { this.list = []; }

  /** The inputs kept, oldest first: [{id, t}]. */
  inputs() { return this.list.map((s) => ({ ...s })); }
}
