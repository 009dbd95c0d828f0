'use strict';
// The peer's inputs stream (bench/peer-broadcaster.js, `make bench-inputs`): what a plain `ws`
// relay does for viewers that replicate, to set beside Scrollcast's inputs stream. A join with
// "stream": "inputs" gets a v2 snapshot carrying a `replica` (empty state: the peer has no
// engine), then every input of the room's drivers relayed as the v2 `batch` Scrollcast sends
// (docs/protocol.md, "The inputs stream"): the first change after a quiet period at once, later
// ones at most once a frame period; and hashed beats 4 a second while the room is "moving" (for
// MOVING_MS after its last input: the peer cannot tell when a fling stops) with a made-up hash.
// No frame is encoded for a room whose members all take inputs. Enough for scrollcast-load
// --stream inputs without --replica (its replica would find the hashes wrong).

const KINDS = {
  pointerDown: 1, pointerMove: 2, pointerUp: 3, pointerCancel: 4, wheel: 5, key: 6, scrollToRow: 7,
  longPressBegan: 8, longPressMove: 9, longPressEnd: 10, longPressCancel: 11, resize: 12, reducedMotion: 13,
};
const KEYS = ['arrowUp', 'arrowDown', 'pageUp', 'pageDown', 'space', 'shiftSpace', 'home', 'end'];
const MODES = ['pixel', 'line', 'page'];
const POSITIONS = ['none', 'top', 'middle', 'bottom'];
const BEAT_PERIOD_MS = 250;
const MOVING_MS = 3000;

const number = (x) => (Number.isFinite(x) ? x : 0);
const choice = (options, value) => Math.max(0, options.indexOf(value));

/// A `num` (docs/protocol.md, "`batch` (`10`)"): `value` as a count of 1/256 or 1/100 when that
/// gives it exactly (`from` + count / base for a Δ), else its 8 bytes.
function num(w, value, from = null) {
  for (const [base, tag] of [[256, 0], [100, 1]]) {
    const n = Math.round((from === null ? value : value - from) * base);
    const back = from === null ? n / base : from + n / base;
    if (Math.abs(n) < 2 ** 50 && back === value && !Object.is(value, -0)) {
      w.uvar((n >= 0 ? 2 * n : -2 * n - 1) * 4 + tag);
      return;
    }
  }
  w.uvar(2); w.f64(value);
}

/// A room time on the room's 1/256 ms grid, as Scrollcast stamps its changes.
const onGrid = (t) => Math.floor(t * 256) / 256;

/// An input's fields as a v2 `batch` entry writes them after its head (each `f64` of `applied` a `num`).
function writeFields(w, m) {
  switch (KINDS[m.kind]) {
    case 1: case 2: case 3: case 8: case 9: case 10: num(w, number(m.x)); num(w, number(m.y)); break;
    case 5: num(w, number(m.dx)); num(w, number(m.dy)); w.u8(choice(MODES, m.mode)); break;
    case 6: w.u8(choice(KEYS, m.key)); break;
    case 7: w.uvar(m.section | 0); w.uvar(m.row | 0); w.u8(choice(POSITIONS, m.position)); w.u8(m.animated ? 1 : 0); break;
    case 12: num(w, number(m.width)); num(w, number(m.height)); break;
    case 13: w.u8(m.on ? 1 : 0); break;
    default: break; // cancels carry nothing
  }
}

/// The relay for rooms of the broadcaster: `Writer` is its v2 writer, `framePeriodMs` its tick.
module.exports = function inputsRelay(Writer, framePeriodMs) {
  const roomTime = (room, now) => now - room.createdAtMs;

  function start(room) {
    room.changes = room.changes || 0;
    room.pending = room.pending || [];
    room.lastBatchMs = room.lastBatchMs || -Infinity;
    room.lastBeatMs = room.lastBeatMs || -Infinity;
    room.lastInputMs = room.lastInputMs || -Infinity;
  }

  /// The snapshot's `replica` field: engine, t, changes, no input, an empty state.
  function replica(room, engine, now) {
    start(room);
    return (w) => { w.uvar(engine); w.f64(roomTime(room, now)); w.uvar(room.changes); w.u8(0); w.uvar(0); };
  }

  function sendToInputs(room, message) {
    for (const member of room.members) {
      if (member.inputs && member.readyState === 1) member.send(message, { binary: true });
    }
  }

  /// The waiting inputs as Scrollcast writes a batch: the front (the last entry's time, the mark
  /// as a Δ from it), then each entry with its time a Δ from the next one's and a run of one
  /// viewer's inputs naming the viewer once.
  function sendBatch(room, now) {
    const w = new Writer();
    const entries = room.pending;
    const last = entries[entries.length - 1];
    w.u8(16); w.uvar(room.changes); w.uvar(entries.length);
    num(w, last.t); num(w, Math.max(last.t, onGrid(roomTime(room, now))), last.t);
    entries.forEach((entry, i) => {
      const previous = entries[i - 1];
      const same = previous !== undefined && previous.viewer === entry.viewer && previous.message.id + 1 === entry.message.id;
      w.u8(KINDS[entry.message.kind] | (same ? 0x80 : 0));   // cause 0: an input
      if (previous === undefined) w.uvar(entry.after); else w.svar(entry.after - previous.after);
      if (i < entries.length - 1) num(w, entry.t, entries[i + 1].t);
      if (!same) { w.str(entry.viewer); w.uvar(entry.message.id); }
      writeFields(w, entry.message);
    });
    room.pending = [];
    room.lastBatchMs = now;
    sendToInputs(room, w.buffer());
  }

  /// A driver's input, relayed: at once after a quiet period, otherwise at the next tick.
  function input(room, ws, message, now) {
    if (!KINDS[message.kind]) return;
    start(room);
    room.changes += 1;
    room.pending.push({ after: room.seq, t: onGrid(roomTime(room, now)), viewer: ws.viewer, message });
    room.lastInputMs = now;
    if (room.inputsMembers > 0 && now - room.lastBatchMs >= framePeriodMs) sendBatch(room, now);
  }

  /// The room's tick: waiting changes, and a beat while it moves.
  function tick(room, now) {
    start(room);
    if (room.inputsMembers === 0) { room.pending = []; return; }
    if (room.pending.length > 0 && now - room.lastBatchMs >= framePeriodMs) sendBatch(room, now);
    if (now - room.lastInputMs < MOVING_MS && now - room.lastBeatMs >= BEAT_PERIOD_MS) {
      room.lastBeatMs = now;
      const t = roomTime(room, now);
      const w = new Writer();
      w.u8(17); w.uvar(2); w.f64(t); w.uvar(0);   // t as an f64 `num`, the mark a Δ of 0 from it
      for (let i = 0; i < 8; i++) w.u8((room.changes * 31 + i * 7) & 0xff); // made up: the peer has no engine
      sendToInputs(room, w.buffer());
    }
  }

  return { replica, input, tick };
};
