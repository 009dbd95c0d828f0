#!/usr/bin/env node
// The peer in `make bench`: a plain WebSocket broadcaster on Node's `ws` (Debian's node-ws 8.11,
// permessage-deflate off), to compare Scrollcast's CPU per delivered frame with.
//
// It speaks only what scrollcast-load needs of protocol v2 (docs/protocol.md): it accepts the
// `scrollcast.v2` subprotocol, answers `join` with a valid binary snapshot of a fixed 300-row scene,
// and then sends every member of the room one binary `frame` (about 110 bytes, like Scrollcast's
// on the drag script) 60 times a second, all rooms from one timer. A driver's `input` is named in
// the room's next frame (so input-to-frame latency is measured too, at the fixed 60 Hz tick; there
// is no frame at once for input and no engine: frames are made up, only their size and header
// matter). Every other message is ignored. A member whose socket holds more than
// MAX_BUFFERED_BYTES unsent is skipped for that frame, as broadcasters usually do (the load
// generator never gets there unless it falls behind). A join with "stream": "inputs" gets the
// room's inputs relayed instead (bench/peer-inputs.js); a room encodes frames only while a member
// takes them.
//
// Usage: node bench/peer-broadcaster.js [--port N] (NODE_PATH=/usr/share/nodejs for Debian's ws).
// Prints "listening on http://127.0.0.1:PORT" once ready; SIGTERM stops it.
'use strict';

const { WebSocketServer } = require('ws');
const inputsRelay = require('./peer-inputs.js');

const SUBPROTOCOL = 'scrollcast.v2';
const FRAME_PERIOD_MS = 1000 / 60;
const MAX_BUFFERED_BYTES = 64 * 1024;
const ROW_COUNT = 300;
const ROW_HEIGHT_UNITS = 1600; // 16 pt in 0.01 pt
const HEADER_HEIGHT_UNITS = 2800; // 28 pt
const VISIBLE_ROWS = 53; // what fills the viewport; also brings the frame to ~110 bytes
const VIEWPORT = [39000, 84400];

// ---- protocol v2 writer (the subset the peer sends) ----

class Writer {
  constructor() { this.bytes = []; }
  u8(v) { this.bytes.push(v & 0xff); }
  uvar(n) {
    n = Math.floor(n);
    while (n >= 128) { this.bytes.push((n % 128) | 0x80); n = Math.floor(n / 128); }
    this.bytes.push(n);
  }
  svar(n) { n = Math.round(n); this.uvar(n >= 0 ? 2 * n : -2 * n - 1); }
  str(s) { const b = Buffer.from(s, 'utf8'); this.uvar(b.length); for (const x of b) this.bytes.push(x); }
  f64(x) { const b = Buffer.alloc(8); b.writeDoubleLE(x); for (const v of b) this.bytes.push(v); }
  buffer() { return Buffer.from(this.bytes); }
}

/// A frame's fields after its type byte: the header scrollcast-load reads (seq, t, sentAt, input)
/// and a scrolling list of VISIBLE_ROWS rows, one section header and the indicator.
function writeFrameBody(w, room, sentAtMs) {
  const animating = 1, inputFlag = room.input ? 2 : 0;
  w.uvar(room.seq);
  w.svar((sentAtMs - room.createdAtMs) * 100);
  w.svar(sentAtMs * 100);
  w.u8(animating | inputFlag);
  w.u8(1); // tracking
  if (room.input) { w.str(room.input.viewer); w.uvar(room.input.id); }
  const contentUnits = HEADER_HEIGHT_UNITS + ROW_COUNT * ROW_HEIGHT_UNITS;
  const maxOffset = contentUnits - VIEWPORT[1];
  const offset = (room.seq * 250) % maxOffset;
  w.svar(VIEWPORT[0]); w.svar(VIEWPORT[1]);
  w.svar(offset); w.svar(contentUnits);
  const first = Math.min(ROW_COUNT - VISIBLE_ROWS, Math.floor(offset / ROW_HEIGHT_UNITS));
  w.uvar(VISIBLE_ROWS);
  w.u8(0x0e); w.uvar(0); w.uvar(first); w.svar(first);
  w.svar(HEADER_HEIGHT_UNITS + first * ROW_HEIGHT_UNITS - offset);
  for (let i = 1; i < VISIBLE_ROWS; i++) w.u8(0);
  w.uvar(1); w.uvar(0); w.svar(0); w.svar(HEADER_HEIGHT_UNITS); // header of section 0
  w.svar(Math.floor(offset / 3)); // background offset
  w.uvar(0); // layers
  const indicatorY = Math.floor(offset * VIEWPORT[1] / contentUnits);
  w.svar(38400); w.svar(indicatorY); w.svar(300); w.svar(3600); w.svar(1000);
}

function frameMessage(room, sentAtMs) {
  const w = new Writer();
  w.u8(2);
  writeFrameBody(w, room, sentAtMs);
  return w.buffer();
}

function snapshotMessage(room, viewer, replica) {
  const w = new Writer();
  w.u8(1); w.uvar(2); w.str(room.name); w.str(viewer); w.uvar(room.members.size);
  w.u8(replica ? 0x20 : 0); // no driver, not locked, no key, no background; the inputs stream's replica
  if (replica) replica(w);
  w.str('peer');
  for (let i = 0; i < 4; i++) w.f64(0); // insets
  w.f64(180); // headerHeight
  w.uvar(0); // layers
  w.uvar(1); w.str('Peer'); w.f64(28); w.uvar(ROW_COUNT);
  for (let i = 0; i < ROW_COUNT; i++) w.svar(0);
  // The texts table: every row, the one section title, no labels.
  w.uvar(ROW_COUNT);
  for (let i = 0; i < ROW_COUNT; i++) {
    w.svar(0); w.svar(ROW_HEIGHT_UNITS); w.str(`Row ${i}`); w.str(''); w.str('');
  }
  w.uvar(1); w.uvar(0); w.str('Peer');
  w.uvar(0);
  writeFrameBody(w, room, performance.timeOrigin + performance.now());
  return w.buffer();
}

// ---- rooms ----

const relay = inputsRelay(Writer, FRAME_PERIOD_MS);

const rooms = new Map();
let nextViewer = 0;

function join(ws, message) {
  const name = message.room;
  if (ws.room || typeof name !== 'string' || name.length === 0) return;
  let room = rooms.get(name);
  if (!room) {
    room = { name, members: new Set(), seq: 0, input: null, createdAtMs: Date.now(), inputsMembers: 0 };
    rooms.set(name, room);
  }
  nextViewer += 1;
  ws.viewer = `p${nextViewer}`;
  ws.room = room;
  ws.inputs = message.stream === 'inputs';
  room.members.add(ws);
  if (ws.inputs) room.inputsMembers += 1;
  const replica = ws.inputs ? relay.replica(room, Number(message.engine) || 0, Date.now()) : null;
  ws.send(snapshotMessage(room, ws.viewer, replica), { binary: true });
}

function leave(ws) {
  const room = ws.room;
  if (!room) return;
  if (room.members.delete(ws) && ws.inputs) room.inputsMembers -= 1;
  if (room.members.size === 0) rooms.delete(room.name);
}

function broadcast() {
  const now = performance.timeOrigin + performance.now();
  for (const room of rooms.values()) {
    room.seq += 1;
    relay.tick(room, Date.now());
    if (room.inputsMembers === room.members.size) continue;
    const frame = frameMessage(room, now);
    for (const member of room.members) {
      if (!member.inputs && member.readyState === 1 && member.bufferedAmount <= MAX_BUFFERED_BYTES) member.send(frame, { binary: true });
    }
  }
}

// One timer for all rooms, kept on a 60 Hz grid (a late tick does not push the later ones back).
const started = performance.now();
let tick = 0;
function scheduleTick() {
  tick += 1;
  const due = started + tick * FRAME_PERIOD_MS;
  setTimeout(() => { broadcast(); scheduleTick(); }, Math.max(0, due - performance.now()));
}

// ---- server ----

const portIndex = process.argv.indexOf('--port');
const port = portIndex > 0 ? Number(process.argv[portIndex + 1]) : 0;
const server = new WebSocketServer({
  host: '127.0.0.1',
  port,
  path: '/ws',
  perMessageDeflate: false,
  handleProtocols: (protocols) => (protocols.has(SUBPROTOCOL) ? SUBPROTOCOL : false),
});

server.on('connection', (ws) => {
  ws.on('message', (data, isBinary) => {
    if (isBinary) return;
    let message;
    try { message = JSON.parse(data.toString('utf8')); } catch { return; }
    if (message.type === 'join') join(ws, message);
    else if (message.type === 'input' && ws.room && Number.isSafeInteger(message.id)) {
      ws.room.input = { viewer: ws.viewer, id: message.id };
      relay.input(ws.room, ws, message, Date.now());
    }
  });
  ws.on('close', () => leave(ws));
  ws.on('error', () => leave(ws));
});

server.on('listening', () => {
  console.log(`listening on http://127.0.0.1:${server.address().port}/ (peer: node ws broadcaster)`);
  scheduleTick();
});

process.on('SIGTERM', () => {
  for (const client of server.clients) client.terminate();
  server.close(() => process.exit(0));
  setTimeout(() => process.exit(0), 1000).unref();
});
