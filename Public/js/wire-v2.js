// Protocol version 2 (docs/protocol.md, "Version 2"): the server's binary messages, decoded with
// a DataView into exactly the objects version 1's JSON.parse gives, so the rest of the page does
// not know which version it speaks. The decoder keeps the room's texts (row texts by id, section
// titles, panel labels): a snapshot replaces them, a `texts` message adds to them, frames name them.

import { CAUSES, choose, num, readBatch, readChange, sum } from "./wire-v2-batch.js";

const PHASES = ["idle", "tracking", "decelerating", "bouncing", "animating"];
const TYPES = [null, "snapshot", "frame", "texts", "rowMoved", "presence", "refused", "error", "resumed", "applied", "beat",
  "asked", "granted", "denied", "expired", "follow", "batch", "hashedBeat", "held", "pong"];
const utf8 = new TextDecoder("utf-8", { fatal: true });

/** Reads the pieces of a message in order; throws on anything the doc refuses. */
class Reader {
  constructor(buffer) {
    this.view = new DataView(buffer);
    this.bytes = new Uint8Array(buffer);
    this.offset = 0;
  }

  u8() {
    if (this.offset >= this.bytes.length) throw new Error(`message ends early at byte ${this.offset}`);
    return this.bytes[this.offset++];
  }

  /** Unsigned LEB128, at most 8 bytes and 2^53 − 1: arithmetic, since bitwise ops are 32-bit. */
  uvar() {
    let value = 0;
    let scale = 1;
    for (let i = 0; i < 8; i++) {
      const b = this.u8();
      value += (b & 0x7f) * scale;
      if (b < 0x80) {
        if (value > Number.MAX_SAFE_INTEGER) throw new Error("varint beyond 2^53 − 1");
        return value;
      }
      scale *= 128;
    }
    throw new Error("varint longer than 8 bytes");
  }

  /** Zigzag: 0, 1, 2, 3 … are 0, −1, 1, −2 … */
  svar() {
    const z = this.uvar();
    return z % 2 === 0 ? z / 2 : -(z + 1) / 2;
  }

  /** The next `length` bytes, copied. */
  take(length) {
    if (this.offset + length > this.bytes.length) throw new Error("bytes run past the end of the message");
    const bytes = this.bytes.slice(this.offset, this.offset + length);
    this.offset += length;
    return bytes;
  }

  /** A frame hash: 8 bytes, a little-endian u64, as 16 lowercase hex digits, most significant first. */
  hash() {
    return Array.from(this.take(8)).reverse().map((b) => b.toString(16).padStart(2, "0")).join("");
  }

  str() {
    return utf8.decode(this.take(this.uvar()));
  }

  f64() {
    if (this.offset + 8 > this.bytes.length) throw new Error("message ends early");
    const x = this.view.getFloat64(this.offset, true);
    this.offset += 8;
    if (!Number.isFinite(x)) throw new Error("non-finite number");
    return x;
  }

  end() {
    if (this.offset !== this.bytes.length) throw new Error(`${this.bytes.length - this.offset} bytes after the end of the message`);
  }
}

/** Units of 0.01 pt (or ms) to the double version 1 writes; `+ 0` turns −0 into 0. */
const pt = (units) => units / 100 + 0;
/** Units of 0.001 (alphas, lift). */
const frac = (units) => units / 1000 + 0;


export class WireV2Decoder {
  constructor() {
    this.reset();
  }

  /** Forgets every text (a new connection starts from its snapshot). */
  reset() {
    this.rows = new Map();       // id → {h (units), title, subtitle, detail}
    this.sections = new Map();   // section index → title
    this.labels = new Map();     // label → {title, detail}
  }

  /** One binary message (an ArrayBuffer) as version 1's object; `texts` as {type: "texts", …}. */
  decode(buffer) {
    const r = new Reader(buffer);
    const type = TYPES[r.u8()];
    let message;
    switch (type) {
      case "snapshot": message = this.snapshot(r); break;
      case "frame": message = this.frame(r); break;
      case "texts": {
        const texts = this.texts(r);
        r.end();
        this.apply(texts);
        const message = { type: "texts", ...texts };
        // The bytes after the type byte, for a replica keeping the server's table (replica/).
        Object.defineProperty(message, "body", { value: r.bytes.subarray(1), enumerable: false });
        return message;
      }
      case "applied": message = this.applied(r); break;
      case "beat": message = { type: "beat", t: r.f64(), complete: r.f64() }; break;
      // The inputs stream (docs/protocol.md, "The inputs stream"): its changes and its hashed beat.
      case "batch": message = readBatch(r); break;
      case "hashedBeat": {
        const t = num(r);   // a num, the mark a num Δ from it (docs/protocol.md, "`beat` with its hash (`11`)")
        message = { type: "beat", t, complete: num(r, t), hash: r.hash() };
        break;
      }
      case "pong": message = { type: "pong", id: r.uvar() }; break;
      case "held": {
        const input = r.uvar();   // docs/protocol.md, "`held` (`12`)": t a num, at a num Δ from it
        const t = num(r);
        message = { type: "held", input, t, at: num(r, t) };
        break;
      }
      case "rowMoved":
        message = { type: "rowMoved", rowId: r.svar(), from: { s: r.uvar(), r: r.uvar() }, to: { s: r.uvar(), r: r.uvar() },
                    by: r.str(), version: r.uvar() };
        break;
      case "presence": {
        const viewers = r.uvar();
        const flags = this.flags(r, 0x0f);
        message = { type: "presence", viewers, driver: flags & 1 ? r.str() : null, locked: Boolean(flags & 2) };
        // Sharing (docs/protocol.md): present only while someone explores or holds a grant, as in version 1.
        if (flags & 4) message.exploring = r.uvar();
        if (flags & 8) {
          message.granted = [];
          for (let n = r.uvar(), i = 0; i < n; i++) message.granted.push(r.str());
        }
        break;
      }
      case "asked":
        message = { type: "asked", viewer: r.str(), expiresIn: r.uvar() };
        break;
      case "granted": {
        message = { type: "granted", viewer: r.str(), by: r.str() };
        if (this.flags(r, 0x01) & 1) message.grant = r.str();
        break;
      }
      case "denied":
        message = { type: "denied", viewer: r.str(), by: r.str() };
        break;
      case "expired":
        message = { type: "expired", viewer: r.str() };
        break;
      case "follow":
        message = { type: "follow", by: r.str() };
        break;
      case "refused": {
        const flags = this.flags(r, 0x01);
        message = { type: "refused", input: flags & 1 ? r.uvar() : null, code: r.str(), reason: r.str() };
        break;
      }
      case "error":
        message = { type: "error", message: r.str() };
        break;
      case "resumed": {
        // The texts of the connection before stay: the server sends only what was missed.
        message = { type: "resumed", room: r.str(), viewer: r.str(), viewers: r.uvar() };
        const flags = this.flags(r, 0x07);
        message.driver = flags & 1 ? r.str() : null;
        message.locked = Boolean(flags & 2);
        const driverKey = flags & 4 ? r.str() : null;
        Object.assign(message, { life: r.uvar(), moves: r.uvar(), from: r.uvar(), seq: r.uvar() });
        if (driverKey !== null) message.driverKey = driverKey;
        break;
      }
      default:
        throw new Error("unknown message type");
    }
    r.end();
    return message;
  }

  flags(r, allowed) {
    const flags = r.u8();
    if (flags & ~allowed) throw new Error(`reserved bits set in flags ${flags}`);
    return flags;
  }

  texts(r) {
    const rows = [];
    let previous = -1;
    for (let n = r.uvar(), i = 0; i < n; i++) {
      const id = sum(previous + 1, r.svar());
      previous = id;
      rows.push({ id, h: r.svar(), title: r.str(), subtitle: r.str(), detail: r.str() });
    }
    const sections = [];
    for (let n = r.uvar(), i = 0; i < n; i++) sections.push({ s: r.uvar(), title: r.str() });
    const labels = [];
    for (let n = r.uvar(), i = 0; i < n; i++) labels.push({ label: r.uvar(), title: r.str(), detail: r.str() });
    return { rows, sections, labels };
  }

  apply({ rows, sections, labels }) {
    for (const row of rows) this.rows.set(row.id, row);
    for (const section of sections) this.sections.set(section.s, section.title);
    for (const label of labels) this.labels.set(label.label, { title: label.title, detail: label.detail });
  }

  snapshot(r) {
    const message = { type: "snapshot", protocol: r.uvar(), room: r.str(), viewer: r.str(), viewers: r.uvar() };
    const flags = this.flags(r, 0x3f);
    message.driver = flags & 1 ? r.str() : null;
    const driverKey = flags & 4 ? r.str() : null;
    const resumePoint = flags & 16 ? { life: r.uvar(), moves: r.uvar() } : null;
    const replica = flags & 32 ? this.replica(r) : null;
    message.sceneName = r.str();
    message.locked = Boolean(flags & 2);
    const insets = { top: r.f64(), left: r.f64(), bottom: r.f64(), right: r.f64() };
    const headerHeight = r.f64();
    const background = flags & 8 ? { image: r.str(), height: r.f64() } : null;
    const layers = [];
    for (let n = r.uvar(), i = 0; i < n; i++) {
      layers.push({ image: r.str(), width: r.f64(), height: r.f64(), restingY: r.f64(), pullFactor: r.f64(), scrollFactor: r.f64() });
    }
    const sections = [];
    let previous = -1;
    let rowCount = 0;
    for (let n = r.uvar(), i = 0; i < n; i++) {
      const title = r.str();
      const sectionHeaderHeight = r.f64();
      const rows = [];
      for (let m = r.uvar(), j = 0; j < m; j++) {
        previous = sum(previous + 1, r.svar());
        rows.push(previous);
      }
      rowCount += rows.length;
      sections.push({ title, headerHeight: sectionHeaderHeight, rows });
    }
    const textsStart = r.offset;
    const texts = this.texts(r);
    const textsBody = r.bytes.subarray(textsStart, r.offset);
    this.reset();
    this.apply(texts);
    const frame = this.frame(r);
    message.scene = { viewport: { ...frame.viewport }, insets, headerHeight, background, layers, rowCount, sections };
    message.frame = frame;
    if (driverKey !== null) message.driverKey = driverKey;
    if (resumePoint) Object.assign(message, resumePoint);
    if (replica) message.replica = replica;
    Object.defineProperty(message, "textsBody", { value: textsBody, enumerable: false });
    return message;
  }

  /** A snapshot's `replica` (the inputs stream): `state` in base64 as version 1 has it, and its bytes. */
  replica(r) {
    const replica = { engine: r.uvar(), t: r.f64(), changes: r.uvar() };
    replica.input = this.flags(r, 0x01) & 1 ? { viewer: r.str(), id: r.uvar() } : null;
    const bytes = r.take(r.uvar());
    replica.state = btoa(String.fromCharCode(...bytes));
    Object.defineProperty(replica, "stateBytes", { value: bytes, enumerable: false });
    return replica;
  }

  /** An `applied` message, as version 1's JSON has it. */
  applied(r) {
    const message = { type: "applied", after: r.uvar(), t: r.f64() };
    const flags = this.flags(r, 0x03);
    if (flags & 2) message.complete = null; // JSON's key order: `complete` follows `t`
    message.viewer = flags & 1 ? r.str() : null;
    if (flags & 2) message.complete = r.f64();
    message.id = r.uvar();
    message.cause = choose(CAUSES, r.u8());
    return readChange(r, r.u8(), message, (r) => r.f64());
  }

  rowTexts(id) {
    const texts = this.rows.get(id);
    if (!texts) throw new Error(`row ${id} has no texts`);
    return texts;
  }

  frame(r) {
    const frame = { type: "frame", seq: r.uvar(), t: pt(r.svar()), sentAt: pt(r.svar()) };
    const flags = this.flags(r, 0x3f);
    const phase = r.u8();   // a phase this version does not list reads as idle, as in version 1
    if (flags & 0x20 && !(flags & 0x08)) throw new Error("settling without a lifted row");
    frame.input = flags & 2 ? { viewer: r.str(), id: r.uvar() } : null;
    frame.phase = PHASES[phase] ?? "idle";
    frame.animating = Boolean(flags & 1);
    frame.viewport = { width: pt(r.svar()), height: pt(r.svar()) };
    frame.offset = pt(r.svar());
    frame.contentHeight = pt(r.svar());

    // Each row's code byte says which fields are written; the rest follow from the row before.
    const rows = [];
    let s = 0, row = -1, id = -1, y = 0, h = 0;
    for (let n = r.uvar(), i = 0; i < n; i++) {
      const code = r.u8();
      const path = code & 3;
      if (code & 0xe0 || path === 3) throw new Error(`bad row code ${code}`);
      if (path === 0) row += 1;
      else if (path === 1) { s += 1; row = 0; }
      else { s = r.uvar(); row = r.uvar(); }
      id = sum(id + 1, code & 4 ? r.svar() : 0);
      y = sum(y + h, code & 8 ? r.svar() : 0);
      const texts = this.rowTexts(id);
      h = code & 16 ? r.svar() : texts.h;
      rows.push({ s, r: row, id, y: pt(y), h: pt(h), title: texts.title, subtitle: texts.subtitle, detail: texts.detail });
    }
    frame.rows = rows;
    const headers = [];
    for (let n = r.uvar(), i = 0; i < n; i++) {
      const section = r.uvar();
      const header = { s: section, y: pt(r.svar()), h: pt(r.svar()) };
      if (!this.sections.has(section)) throw new Error(`section ${section} has no title`);
      header.title = this.sections.get(section);
      headers.push(header);
    }
    frame.headers = headers;
    frame.background = { offset: pt(r.svar()) };
    const layers = [];
    let layerY = 0;
    for (let n = r.uvar(), i = 0; i < n; i++) {
      const index = r.uvar();
      layerY = sum(layerY, r.svar());
      layers.push({ i: index, y: pt(layerY) });
    }
    frame.layers = layers;
    const ix = r.svar();
    const iy = r.svar();
    frame.indicator = { x: pt(ix), y: pt(iy), w: pt(r.svar()), h: pt(r.svar()), alpha: frac(r.svar()) };
    frame.panel = null;
    if (flags & 4) {
      const panel = { x: pt(sum(ix, r.svar())), y: pt(sum(iy, r.svar())), w: pt(r.svar()), h: pt(r.svar()), alpha: frac(r.svar()) };
      const label = this.labels.get(r.uvar());
      if (!label) throw new Error("unknown panel label");
      panel.title = label.title;
      panel.detail = label.detail;
      frame.panel = panel;
    }
    frame.lifted = null;
    if (flags & 8) {
      const ls = r.uvar(), lr = r.uvar(), lid = r.svar();
      const ly = pt(r.svar()), lh = pt(r.svar()), lift = frac(r.svar());
      const texts = this.rowTexts(lid);
      frame.lifted = { s: ls, r: lr, id: lid, y: ly, h: lh, title: texts.title, subtitle: texts.subtitle,
                       detail: texts.detail, lift, settling: Boolean(flags & 0x20) };
    }
    frame.placeholder = null;
    if (flags & 16) frame.placeholder = { s: r.uvar(), r: r.uvar(), y: pt(r.svar()), h: pt(r.svar()) };
    return frame;
  }
}
