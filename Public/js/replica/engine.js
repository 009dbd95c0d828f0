// The server's own engine, compiled to WebAssembly (docs/wasm.md), wrapped for the page.
//
// `loadEngine()` fetches Public/wasm/scrollcast-engine.wasm and returns a ReplicaEngine: a room's
// scene that applies the inputs the room applied and gives, for any room time, the v2 frame the
// server would send (the same bytes, `sentAt` aside). It computes nothing itself: every number
// comes from the Swift engine. The page's replica (page-replica.js) drives it.

import { KEYS, POSITIONS, WHEEL_MODES } from "../input-names.js";
import { sceneBytesOf } from "./scene-bytes.js";

/** Input kind codes of the boundary (InputCode.Kind in Sources/ScrollReplica). */
export const InputKind = Object.freeze({
  pointerDown: 1, pointerMoved: 2, pointerUp: 3, pointerCancelled: 4, wheel: 5, key: 6,
  scrollToRow: 7, longPressBegan: 8, longPressMoved: 9, longPressEnded: 10,
  longPressCancelled: 11, resize: 12, reducedMotion: 13,
});
/** Protocol `kind` names (docs/protocol.md, "Inputs") → boundary kind codes. */
const PROTOCOL_KINDS = {
  pointerDown: 1, pointerMove: 2, pointerUp: 3, pointerCancel: 4, wheel: 5, key: 6, scrollToRow: 7,
  longPressBegan: 8, longPressMove: 9, longPressEnd: 10, longPressCancel: 11, resize: 12, reducedMotion: 13,
};

/** Result codes of `apply`, `create` and `restore` (ReplicaResult in Sources/ScrollReplica). */
export const Result = Object.freeze({
  applied: 0, rowMoved: 1, timeWentBackwards: -1, notFinite: -2, rowOutOfRange: -3, invalidSize: -4,
  unexpected: -5, unknownInput: -10, noScene: -11, badArgument: -12,
});

/**
 * A protocol input message's kind and fields (`{kind: "wheel", dx, dy, mode}`, as
 * docs/protocol.md spells them) as the boundary's numbers `{kind, a, b, c, d}`, or null for an
 * unknown kind.
 */
export function inputNumbers(input) {
  const kind = PROTOCOL_KINDS[input.kind];
  if (!kind) return null;
  switch (kind) {
    case InputKind.wheel: return {kind, a: input.dx, b: input.dy, c: WHEEL_MODES.indexOf(input.mode), d: 0};
    case InputKind.key: return {kind, a: KEYS.indexOf(input.key), b: 0, c: 0, d: 0};
    case InputKind.scrollToRow:
      return {kind, a: input.section, b: input.row, c: POSITIONS.indexOf(input.position), d: input.animated ? 1 : 0};
    case InputKind.resize: return {kind, a: input.width, b: input.height, c: 0, d: 0};
    case InputKind.reducedMotion: return {kind, a: input.on ? 1 : 0, b: 0, c: 0, d: 0};
    default: return {kind, a: input.x ?? 0, b: input.y ?? 0, c: 0, d: 0};
  }
}

/** Applies an `applied` change (docs/protocol.md, "Inputs applied") to `engine` as the room did. */
export function applyChange(engine, message) {
  if (message.kind === "rowOrder") return engine.reorder(message.order, message.t);
  const numbers = inputNumbers(message);
  return numbers ? engine.apply(numbers, message.id, message.t, message.viewer ?? "", message.cause === "input") : null;
}

/**
 * WASI imports: only the C library's output path (reached when the engine traps on a bug)
 * and the hash seed are used. Output goes to console.error.
 */
function wasiImports(memory) {
  const decoder = new TextDecoder();
  let pending = "";
  return {
    fd_write(fd, iovs, iovsLength, written) {
      const view = new DataView(memory().buffer);
      let total = 0;
      for (let i = 0; i < iovsLength; i++) {
        const base = view.getUint32(iovs + i * 8, true), length = view.getUint32(iovs + i * 8 + 4, true);
        pending += decoder.decode(new Uint8Array(memory().buffer, base, length));
        total += length;
      }
      const lines = pending.split("\n");
      pending = lines.pop();
      for (const line of lines) console.error(`scrollcast-engine.wasm (fd ${fd}): ${line}`);
      view.setUint32(written, total, true);
      return 0;
    },
    fd_seek() { return 70; }, // ESPIPE: the console is not seekable
    fd_close() { return 0; },
    random_get(buffer, length) {
      crypto.getRandomValues(new Uint8Array(memory().buffer, buffer, length));
      return 0;
    },
  };
}

/** Fetches and instantiates the engine; resolves to a ReplicaEngine. */
export async function loadEngine(url = ENGINE_URL) {
  const [engine] = await loadEngines(1, url);
  return engine;
}

const ENGINE_URL = new URL("../../wasm/scrollcast-engine.wasm", import.meta.url);

/**
 * Fetches and compiles the module once and instantiates it `count` times (each instance holds
 * one replica: the page runs its replica and the confirmed engine that judges its pictures).
 * Resolves to the ReplicaEngines and `instantiate()`, which makes another one from the same
 * compiled module (after a trap, without fetching again).
 */
export async function loadEngines(count, url = ENGINE_URL) {
  if (typeof WebAssembly !== "object") throw new Error("this browser has no WebAssembly");
  // index.html starts the fetch before the modules load; take it once, for the default module.
  const early = globalThis.scrollcastEarly?.engine;
  if (early) globalThis.scrollcastEarly.engine = null;
  const earlyURL = globalThis.document && new URL("wasm/scrollcast-engine.wasm", document.baseURI).href;
  const response = await (early && String(url) === earlyURL ? early : fetch(url));
  if (!response.ok) throw new Error(`${url}: HTTP ${response.status}`);
  let module;
  try {
    module = await WebAssembly.compileStreaming(response.clone());
  } catch (error) {
    // Served with another content type, or no streaming compile: compile from the bytes.
    module = await WebAssembly.compile(await response.arrayBuffer());
  }
  const engines = [];
  for (let i = 0; i < count; i += 1) engines.push(await instantiateEngine(module));
  Object.defineProperty(engines, "instantiate", { value: () => instantiateEngine(module) });
  return engines;
}

/** A fresh ReplicaEngine from a compiled module. */
export async function instantiateEngine(module) {
  let instance;
  const imports = {wasi_snapshot_preview1: wasiImports(() => instance.exports.memory)};
  instance = await WebAssembly.instantiate(module, imports);
  return new ReplicaEngine(instance.exports);
}

/** One room's engine in the page (see docs/wasm.md for each call's exact meaning). */
export class ReplicaEngine {
  constructor(exports) {
    this.exports = exports;
    this.encoder = new TextEncoder();
    /** Set when the engine trapped: it must not be used again (rebuild it from the server). */
    this.broken = null;
  }

  /**
   * Creates the scene `name`: one whose bytes were fetched (scene-bytes.js), else the
   * catalogue's ("demo", "seed-table"); returns a Result code (noScene for a name it has neither of).
   */
  create(name) {
    const bytes = sceneBytesOf(name);
    return bytes ? this.createScene(name, bytes) : this.#call(() => this.exports.scrollcast_create(this.#putText(name)));
  }

  /** Creates the scene `bytes` (`SceneBytes`, a Uint8Array) describe, called `name`; a Result code. */
  createScene(name, bytes) {
    const nameBytes = this.encoder.encode(name);
    const address = this.exports.scrollcast_input(nameBytes.length + bytes.length);
    const memory = new Uint8Array(this.exports.memory.buffer, address, nameBytes.length + bytes.length);
    memory.set(nameBytes);
    memory.set(bytes, nameBytes.length);
    return this.#call(() => this.exports.scrollcast_create_scene(nameBytes.length, bytes.length));
  }

  /** Restores a state at rest: row ids per section, viewport {width, height}, resting offset. */
  restore(order, viewport, offset) {
    const words = [order.length];
    for (const section of order) words.push(section.length, ...section);
    const address = this.exports.scrollcast_input(words.length * 4);
    new Int32Array(this.exports.memory.buffer, address, words.length).set(words);
    return this.#call(() => this.exports.scrollcast_restore(words.length, viewport.width, viewport.height, offset));
  }

  /** The current row order (row ids per section). */
  order() {
    const count = this.#call(() => this.exports.scrollcast_order());
    const words = new Int32Array(this.exports.memory.buffer, this.exports.scrollcast_output(), count);
    const order = [];
    let at = 1;
    for (let s = 0; s < words[0]; s++) {
      order.push(Array.from(words.subarray(at + 1, at + 1 + words[at])));
      at += words[at] + 1;
    }
    return order;
  }

  /**
   * Applies an input at room time `time` with the sender's `id`, for `viewer`; `input` is the
   * boundary's numbers {kind, a, b, c, d} (see inputNumbers). Returns {code} and, for a row
   * move, {moved: {rowId, from: [section, row], to: [section, row]}}.
   */
  apply(input, id, time, viewer, namesFrames = true) {
    const length = this.#putText(viewer);
    const call = namesFrames ? this.exports.scrollcast_apply : this.exports.scrollcast_apply_unnamed;
    const code = this.#call(() => call(
      input.kind, id, time, input.a ?? 0, input.b ?? 0, input.c ?? 0, input.d ?? 0, length));
    if (code !== Result.rowMoved) return {code};
    const m = new Int32Array(this.exports.memory.buffer, this.exports.scrollcast_output(), 5);
    return {code, moved: {rowId: m[0], from: [m[1], m[2]], to: [m[3], m[4]]}};
  }

  /**
   * The frame at room time `t`: `bytes` is the v2 `frame` message (a view into the engine's
   * memory, valid until the next call: copy it to keep it), `texts` the `texts` message the
   * room would send before it (or null), plus the content offset and whether it animates.
   */
  frame(t, sequence, sentAt) {
    const length = this.#call(() => this.exports.scrollcast_frame(t, sequence, sentAt));
    if (length < 0) throw new Error(`no scene (code ${length})`);
    const textsLength = this.exports.scrollcast_texts_length();
    const output = this.exports.scrollcast_output();
    const memory = this.exports.memory.buffer;
    return {
      bytes: new Uint8Array(memory, output, length),
      texts: textsLength ? new Uint8Array(memory, output + length, textsLength) : null,
      contentOffset: this.exports.scrollcast_content_offset(),
      isAnimating: this.exports.scrollcast_is_animating() === 1,
    };
  }

  /** Puts the rows back at rest in `order` (row ids per section) at room time `time`. */
  reorder(order, time) {
    const words = this.#putOrder(order);
    return this.#call(() => this.exports.scrollcast_reorder(words, time));
  }

  /** Later frames name `input` ({viewer, id}, or null), as the frame a replica starts from does. */
  nameInput(input) {
    const length = this.#putText(input ? input.viewer : "");
    return this.#call(() => this.exports.scrollcast_name_input(input ? input.id : -1, length));
  }

  /** Reduced motion on or off without an input (the room's state a snapshot does not carry). */
  setReducedMotion(on) {
    return this.#call(() => this.exports.scrollcast_reduced_motion(on ? 1 : 0));
  }

  /**
   * The scene exactly where engine state bytes (a snapshot's `replica.state`, decoded) say, mid-motion
   * included; returns a Result code (badArgument for bytes the engine refuses, the scene unchanged).
   */
  restoreState(bytes) {
    const address = this.exports.scrollcast_input(bytes.length);
    new Uint8Array(this.exports.memory.buffer, address, bytes.length).set(bytes);
    return this.#call(() => this.exports.scrollcast_restore_state(bytes.length));
  }

  /** The beat's frame hash of the frame at room time `t`: 16 lowercase hex digits, most significant first. */
  frameHash(t) {
    const length = this.#call(() => this.exports.scrollcast_frame_hash(t));
    if (length !== 8) throw new Error(`no frame hash (code ${length})`);
    const bytes = new Uint8Array(this.exports.memory.buffer, this.exports.scrollcast_output(), 8);
    return Array.from(bytes).reverse().map((b) => b.toString(16).padStart(2, "0")).join("");
  }

  /** The engine version this module replicates (`EngineVersion.current`, the inputs stream's join). */
  engineVersion() { return this.#call(() => this.exports.scrollcast_engine_version()) >>> 0; }

  /** Keeps a copy of the replica; `load()` puts it back (it stays kept). */
  save() { return this.#call(() => this.exports.scrollcast_save()); }
  load() { return this.#call(() => this.exports.scrollcast_load()); }

  /** The server's texts (a `texts` message without its type byte, or a snapshot's texts part). */
  serverTexts(body, replace) {
    const address = this.exports.scrollcast_input(body.length);
    new Uint8Array(this.exports.memory.buffer, address, body.length).set(body);
    return this.#call(() => this.exports.scrollcast_server_texts(body.length, replace ? 1 : 0));
  }

  /** The frame at `t` encoded against the server's texts: the server's bytes for `sequence`. */
  serverFrame(t, sequence, sentAt) {
    const length = this.#call(() => this.exports.scrollcast_server_frame(t, sequence, sentAt));
    if (length < 0) throw new Error(`no scene (code ${length})`);
    return new Uint8Array(this.exports.memory.buffer, this.exports.scrollcast_output(), length);
  }

  #putOrder(order) {
    const words = [order.length];
    for (const section of order) words.push(section.length, ...section);
    const address = this.exports.scrollcast_input(words.length * 4);
    new Int32Array(this.exports.memory.buffer, address, words.length).set(words);
    return words.length;
  }

  #putText(text) {
    const bytes = this.encoder.encode(text);
    const address = this.exports.scrollcast_input(bytes.length);
    new Uint8Array(this.exports.memory.buffer, address, bytes.length).set(bytes);
    return bytes.length;
  }

  #call(f) {
    if (this.broken) throw this.broken;
    try {
      return f();
    } catch (error) {
      this.broken = error; // a trap leaves the engine's memory in an unknown state
      throw error;
    }
  }
}

/**
 * The server's input time mapping (Swift's InputTimeMapper, run in the engine's module): where
 * the room will put an input of this page, so the page predicts with the server's own rule.
 * One per module instance, as the replica: `reset()` at a new connection.
 */
export class TimeMapper {
  /** The mapper of `engine`'s module (a ReplicaEngine). */
  constructor(engine) {
    this.exports = engine.exports;
  }

  /** How far ahead of the room's present the server places an early input at most, ms
   * (InputTimeMapper.maxLead; docs/protocol.md, "Driving on the room's clock"). */
  static MAX_LEAD = 500;

  /**
   * Room time for an input stamped `clientTime` (its `t`) and `at` (null: not stamped) reaching
   * the room at `now`, whose earliest time for a change is `floor`. Later than `now`: the room
   * holds it until then. null when `t` went backwards (the server refuses it, `outOfOrder`).
   */
  map(clientTime, now, floor, startsGesture, at = null) {
    const time = this.exports.scrollcast_mapper_map(clientTime, at ?? NaN, now, floor, startsGesture ? 1 : 0);
    return Number.isNaN(time) ? null : time;
  }

  /** The server applied our input stamped `clientTime` at room time `room`. */
  confirm(clientTime, room) { this.exports.scrollcast_mapper_confirm(clientTime, room); }

  /** Forgets the anchor and the last client time (a new connection). */
  reset() { this.exports.scrollcast_mapper_reset(); }
}

/** Input kinds that start a gesture (the server re-anchors at them). */
export const GESTURE_STARTS = new Set(["pointerDown", "longPressBegan"]);
