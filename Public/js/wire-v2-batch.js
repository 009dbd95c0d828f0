// The inputs stream's `batch` in protocol version 2 (docs/protocol.md, "`batch` (`10`)"), and the
// fields of an `applied` change, which `applied` (09) writes with 8-byte doubles and a batch with
// `num`s: a short exact count of 1/256 or 1/100, or the 8 bytes where no count gives the double.

import { KEYS, POSITIONS, WHEEL_MODES } from "./input-names.js";

// `applied` (docs/protocol.md, "Inputs applied"): causes and kinds by their codes.
export const CAUSES = ["input", "leave", "unavailable", "takeBack", "state"];
const KINDS = [null, "pointerDown", "pointerMove", "pointerUp", "pointerCancel", "wheel", "key", "scrollToRow",
  "longPressBegan", "longPressMove", "longPressEnd", "longPressCancel", "resize", "reducedMotion", "rowOrder", "rest"];

/** `options[code]`, refused when the code names none. */
export function choose(options, code) {
  const value = options[code];
  if (value === undefined || value === null) throw new Error("unknown code in applied");
  return value;
}

/**
 * A `num`: a varint h whose low two bits say how. 0: the zigzag count h div 4 over 256; 1: over
 * 100; 2 (h = 2): an f64 follows; 3: refused. As written: {x, count} (count false for the f64).
 */
function numPart(r) {
  const h = r.uvar();
  const tag = h % 4;
  if (tag === 2) {
    if (h !== 2) throw new Error("an f64 number's head must be 2");
    return { x: r.f64(), count: false };
  }
  if (tag === 3) throw new Error("number tag 3 is reserved");
  const z = (h - tag) / 4;
  const n = z % 2 === 0 ? z / 2 : -(z + 1) / 2;
  return { x: (tag === 0 ? n / 256 : n / 100) + 0, count: true };
}

/** A `num`; with `base`, a count is a Δ from it (one IEEE addition the server checked is exact). */
export function num(r, base) {
  const { x, count } = numPart(r);
  return base === undefined || !count ? x : base + x;
}

/** a + b for unit counts, refused beyond what a double holds exactly. */
export function sum(a, b) {
  const s = a + b;
  if (!Number.isSafeInteger(s)) throw new Error("value beyond ±(2^53 − 1)");
  return s;
}

/** The change of kind code `code` into `message` (`kind` and its fields), numbers read by `number`. */
export function readChange(r, code, message, number) {
  const kind = choose(KINDS, code);
  const choice = (options) => choose(options, r.u8());
  message.kind = kind;
  switch (kind) {
    case "pointerCancel": case "longPressCancel": break;
    case "wheel": Object.assign(message, { dx: number(r), dy: number(r), mode: choice(WHEEL_MODES) }); break;
    case "key": message.key = choice(KEYS); break;
    case "scrollToRow":
      Object.assign(message, { section: r.uvar(), row: r.uvar(), position: choice(POSITIONS), animated: choice([false, true]) });
      break;
    case "resize": Object.assign(message, { width: number(r), height: number(r) }); break;
    case "reducedMotion": message.on = choice([false, true]); break;
    case "rest": message.offset = number(r); break;
    case "rowOrder": {
      const order = [];
      let previous = -1;
      for (let n = r.uvar(), i = 0; i < n; i++) {
        const rows = [];
        for (let m = r.uvar(), j = 0; j < m; j++) {
          previous = sum(previous + 1, r.svar());
          rows.push(previous);
        }
        order.push(rows);
      }
      message.order = order;
      break;
    }
    default: Object.assign(message, { x: number(r), y: number(r) });
  }
  return message;
}

/**
 * A `batch` after its type byte, as version 1's JSON has it. Its front: `changes`, the entry
 * count, the last entry's `t` (a num), `complete` (a num Δ from it). Each entry: a head byte
 * (bits 0–3 kind, 4–6 cause, 7 "same viewer, id + 1"), `after` (the first a uvar, then an svar
 * Δ), `t` for all but the last (a num Δ from the next entry's: times are filled back to front),
 * the viewer (a str, "" for null) and id unless "same", the fields.
 */
export function readBatch(r) {
  const message = { type: "batch", changes: r.uvar(), complete: 0, applied: [] };
  const n = r.uvar();
  const last = n > 0 ? num(r) : undefined;
  message.complete = num(r, last);
  const times = [];
  let previous = null;
  for (let i = 0; i < n; i++) {
    const head = r.u8();
    const same = (head & 0x80) !== 0;
    if (same && !previous) throw new Error("the first change of a batch cannot repeat a viewer");
    const entry = { after: previous ? sum(previous.after, r.svar()) : r.uvar(), t: last };
    if (entry.after < 0) throw new Error("after below 0");
    if (i + 1 < n) times.push(numPart(r));
    if (same) {
      entry.viewer = previous.viewer;
      entry.id = sum(previous.id, 1);
    } else {
      const viewer = r.str();
      entry.viewer = viewer === "" ? null : viewer;
      entry.id = r.uvar();
    }
    entry.cause = choose(CAUSES, (head >> 4) & 7);
    readChange(r, head & 0x0f, entry, (r) => num(r));
    message.applied.push(entry);
    previous = entry;
  }
  for (let i = times.length - 1; i >= 0; i--) {
    message.applied[i].t = times[i].count ? message.applied[i + 1].t + times[i].x : times[i].x;
  }
  return message;
}
