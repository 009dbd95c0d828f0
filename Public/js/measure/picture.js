// The measures of the drawn picture (docs/measures.md): wrong pictures, judder of the clock and
// of the picture, input-to-picture and watcher lag. Pure: they read entries of the drawn record
// (drawn-record.js) and the pointer inputs sent, nothing else; Tests/e2e/measures_recompute.py
// is the same definitions written again in Python.

import { nearestRank } from "./quantile.js";

/** A picture further than this from the room's own (pt) is wrong; a step further off is judder. */
export const WRONG_PT = 0.5;
/** A display frame's room-time step may differ from its display interval by this share. */
export const CLOCK_TOLERANCE = 0.25;

/**
 * Which entries are in motion: entry i (i ≥ 1) when its picture animates, or its offset (drawn
 * or the room's) differs from entry i − 1's. The first entry, and the first after a pause
 * (`resumed`: the page explored meanwhile), are only references.
 */
export function motion(entries) {
  const m = new Uint8Array(entries.length);
  for (let i = 1; i < entries.length; i += 1) {
    const prev = entries[i - 1], cur = entries[i];
    if (cur.resumed) continue;
    const roomMoved = cur.room !== null && prev.room !== null && cur.room !== prev.room;
    m[i] = cur.animating || cur.offset !== prev.offset || roomMoved ? 1 : 0;
  }
  return m;
}

const isRight = (e) => e.room !== null && Math.abs(e.offset - e.room) <= WRONG_PT;

/** Display frames in motion whose picture was judged, how many were wrong, and the largest error. */
export function wrongPictures(entries, m = motion(entries)) {
  let judged = 0, wrong = 0, unconfirmed = 0, largestPt = 0;
  for (let i = 1; i < entries.length; i += 1) {
    if (!m[i]) continue;
    const e = entries[i];
    if (e.room === null) { unconfirmed += 1; continue; }
    judged += 1;
    const error = Math.abs(e.offset - e.room);
    if (error > WRONG_PT) wrong += 1;
    largestPt = Math.max(largestPt, error);
  }
  return { judged, wrong, unconfirmed, pct: judged ? (100 * wrong) / judged : null, largestPt: judged ? largestPt : null };
}

/**
 * Over pairs of consecutive display frames both in motion: the clock (room-time step against
 * the display interval: a freeze below a quarter of it, a slowdown below three quarters, a jump
 * above five quarters) and the picture (drawn offset step against the room's own step between
 * the same room times, off by more than WRONG_PT; `largestPt` is the largest such correction).
 */
export function judder(entries, m = motion(entries)) {
  let frames = 0, freezes = 0, slowdowns = 0, jumps = 0, judged = 0, off = 0, largestPt = 0;
  for (let i = 2; i < entries.length; i += 1) {
    if (!m[i] || !m[i - 1]) continue;
    const prev = entries[i - 1], cur = entries[i];
    const interval = cur.vsync - prev.vsync;
    const step = cur.t - prev.t;
    frames += 1;
    if (step < (1 - 3 * CLOCK_TOLERANCE) * interval) freezes += 1;
    else if (step < (1 - CLOCK_TOLERANCE) * interval) slowdowns += 1;
    else if (step > (1 + CLOCK_TOLERANCE) * interval) jumps += 1;
    if (cur.room === null || prev.room === null) continue;
    judged += 1;
    const error = Math.abs((cur.offset - prev.offset) - (cur.room - prev.room));
    if (error > WRONG_PT) off += 1;
    largestPt = Math.max(largestPt, error);
  }
  const clockOff = freezes + slowdowns + jumps;
  return {
    clock: { frames, freezes, slowdowns, jumps, pct: frames ? (100 * clockOff) / frames : null },
    picture: { judged, off, pct: judged ? (100 * off) / judged : null, largestPt: judged ? largestPt : null },
  };
}

/**
 * For each pointer input sent ({id, t}: its event's time), the first display frame after it whose
 * picture names this viewer's input with that id or a later one and is right (judged within
 * WRONG_PT of the room's): `{id, ms}` with ms = at − t. A candidate not judged yet ends the search
 * (later inputs wait for it too); one that never will be (`never`) is passed over.
 */
export function inputToPicture(entries, sent) {
  const samples = [];
  let start = 0;
  for (const s of [...sent].sort((a, b) => a.id - b.id)) {
    if (!entries.length || s.t < entries[0].at) continue;   // before the record: not measurable
    while (start < entries.length && entries[start].at <= s.t) start += 1;
    let found = null, pending = false;
    for (let i = start; i < entries.length && !found; i += 1) {
      const e = entries[i];
      if (!e.own || e.input < s.id) continue;
      if (e.never) continue;   // never judged: not shown right
      if (e.room === null) { pending = true; break; }
      if (isRight(e)) found = e;
    }
    if (pending) break;
    if (found) samples.push({ id: s.id, ms: found.at - s.t });
  }
  return samples;
}

/** How far behind the room's present (as the page estimates it) the display frames in motion draw. */
export function lag(entries, m = motion(entries)) {
  const values = [];
  for (let i = 1; i < entries.length; i += 1) {
    if (m[i] && entries[i].present !== null) values.push(entries[i].present - entries[i].t);
  }
  return { p50: nearestRank(values, 0.5), p99: nearestRank(values, 0.99), samples: values.length };
}

/** Every measure over `entries` (oldest first) and the pointer inputs `sent`. */
export function pictureMeasures(entries, sent) {
  const m = motion(entries);
  const samples = inputToPicture(entries, sent);
  const ms = samples.map((s) => s.ms);
  let motionFrames = 0;
  for (const x of m) motionFrames += x;
  return {
    motionFrames,
    wrong: wrongPictures(entries, m),
    ...judder(entries, m),
    inputToPicture: { p50: nearestRank(ms, 0.5), p99: nearestRank(ms, 0.99), count: ms.length },
    lag: lag(entries, m),
  };
}
