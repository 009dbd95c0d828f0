// Judder: the share of display frames, during motion, that are off the motion's curve — a server
// frame shown again when a newer one was due (a repeat) or server frames never shown (a skip).
// Pure: it reads entries of the drawn record (drawn-record.js) and nothing else. The definition,
// word for word, is in docs/measures.md; tests recompute it in Python from the raw record.

import { median } from "./quantile.js";

/**
 * Judder over `entries` (oldest first; each with `seq`, `t`, `vsync`, `offset`, `animating`).
 * The first entry is only the reference for the second. Returns counts and `judderPct`
 * (null when no display frame was in motion).
 */
export function judder(entries) {
  const { serverPeriodMs, displayPeriodMs } = periods(entries);
  const ratio = serverPeriodMs && displayPeriodMs ? serverPeriodMs / displayPeriodMs : 1;
  // A 60 Hz room on a 120 Hz display shows each frame twice by design; a 120 Hz room on a
  // 60 Hz display steps two frames by design. Neither is judder.
  const showingsAllowed = Math.max(1, Math.round(ratio));
  const stepAllowed = Math.max(1, Math.round(1 / ratio));
  const next = nextPictures(entries);
  // How many display frames the picture first shown at entry i stands for: the room time until
  // the next frame the room produced (a room sends nothing while nothing visible changes, so
  // that can be several periods), in display periods. Unknown at the span's end: the rates' ratio.
  const allowedFrom = (i) => {
    const j = next[i];
    if (j < 0 || !displayPeriodMs) return showingsAllowed;
    const perSeq = (entries[j].t - entries[i].t) / (entries[j].seq - entries[i].seq);
    return Math.max(1, Math.round(perSeq / displayPeriodMs));
  };

  let motionFrames = 0, repeats = 0, skips = 0, dropped = 0;
  let roughnessSum = 0, roughnessCount = 0;
  let showings = 1;
  let allowed = entries.length ? allowedFrom(0) : 1;
  for (let i = 1; i < entries.length; i += 1) {
    const prev = entries[i - 1];
    const cur = entries[i];
    const inMotion = cur.animating && cur.seq >= 0;
    if (cur.seq === prev.seq) showings += 1;
    else { showings = 1; allowed = allowedFrom(i); }
    if (!inMotion) continue;
    motionFrames += 1;
    if (cur.seq === prev.seq) {
      if (showings > allowed) repeats += 1;
    } else if (prev.seq >= 0 && cur.seq - prev.seq > stepAllowed) {
      skips += 1;
    }
    if (prev.animating && displayPeriodMs) {
      dropped += Math.max(0, Math.round((cur.vsync - prev.vsync) / displayPeriodMs) - 1);
    }
    if (i >= 2 && prev.animating && entries[i - 2].animating && entries[i - 2].seq >= 0) {
      roughnessSum += Math.abs(cur.offset - 2 * prev.offset + entries[i - 2].offset);
      roughnessCount += 1;
    }
  }
  return {
    motionFrames, repeats, skips, dropped,
    judderPct: motionFrames ? (100 * (repeats + skips)) / motionFrames : null,
    roughnessPt: roughnessCount ? roughnessSum / roughnessCount : null,
    serverPeriodMs, displayPeriodMs, showingsAllowed, stepAllowed,
  };
}

/** For each entry, the index of the next entry showing a later frame, or -1. */
function nextPictures(entries) {
  const next = new Int32Array(entries.length).fill(-1);
  for (let i = entries.length - 2; i >= 0; i -= 1) {
    next[i] = entries[i + 1].seq > entries[i].seq ? i + 1 : next[i + 1];
  }
  return next;
}

/**
 * The room's frame period (median room time per seq between consecutive display frames in
 * motion that show different frames) and the display's period (median vsync step between
 * consecutive display frames in motion); null when the entries hold no such pair.
 */
export function periods(entries) {
  const server = [];
  const display = [];
  for (let i = 1; i < entries.length; i += 1) {
    const prev = entries[i - 1];
    const cur = entries[i];
    if (!(prev.animating && cur.animating && prev.seq >= 0)) continue;
    display.push(cur.vsync - prev.vsync);
    if (cur.seq > prev.seq) server.push((cur.t - prev.t) / (cur.seq - prev.seq));
  }
  return { serverPeriodMs: median(server), displayPeriodMs: median(display) };
}
