// The WebSocket to the server (docs/protocol.md): join a room, hand every message to the page,
// reconnect by itself (at once, then with exponential backoff; to the next node of a cluster's
// list, nodes.js) and resume where it was (docs/protocol.md, "Resuming"): the server then sends
// only what was missed, or a snapshot when it cannot. The join goes in the socket's URL
// (docs/protocol.md, "Joining in the upgrade"), so the snapshot follows the upgrade at once; a
// join holding a secret goes as a message, as it does to a server that ignores the URL's. It speaks
// protocol version 2 (binary, decoded by wire-v2.js) when the server does, else version 1 (JSON);
// either way the page gets the same message objects.

import { LinkPing } from "./link-ping.js";
import { WireV2Decoder } from "./wire-v2.js";

/** Subprotocols offered, preferred first: the server takes the first it speaks. */
export const SUBPROTOCOLS = ["scrollcast.v2", "scrollcast.v1"];

/** The subprotocols to offer: ?protocol=v1 or ?protocol=v2 offers only that version (for tests
 * and comparisons); otherwise both, version 2 first. */
export function subprotocolsFromLocation(loc = window.location) {
  const asked = new URLSearchParams(loc.search).get("protocol");
  return asked === "v1" || asked === "v2" ? [`scrollcast.${asked}`] : SUBPROTOCOLS;
}

const FIRST_RETRY_MS = 250;

/**
 * Where this page is in its room, for a resume: the room's life and move count (from a snapshot
 * of a `resumable` join), the last frame's seq, and the protocol they were received in (a resume
 * is asked only on a socket of the same protocol: version 2's texts live in its decoder).
 */
export class ResumePoint {
  constructor() {
    this.life = null;
    this.seq = null;
    this.moves = 0;
    this.protocol = null;
    this.grant = null;   // a grant to drive (docs/protocol.md, "Sharing"), for the room's life it came in
    this.stream = null;  // "frames" or "inputs": what `seq` counts (frames or changes)
  }

  /** Keeps what a message says of the room's position. */
  track(message, protocol) {
    switch (message.type) {
      case "snapshot": {
        const life = Number.isSafeInteger(message.life) && message.life > 0 ? message.life : null;
        if (life !== this.life) this.grant = null;   // a room made again holds no grants
        this.life = life;
        this.moves = Number.isSafeInteger(message.moves) ? message.moves : 0;
        // The inputs stream counts changes, not frames (docs/protocol.md, "Resuming in the inputs stream").
        this.stream = message.replica ? "inputs" : "frames";
        this.seq = message.replica ? message.replica.changes : message.frame?.seq;
        if (!Number.isSafeInteger(this.seq)) this.seq = null;
        this.protocol = protocol;
        break;
      }
      case "resumed":
        this.protocol = protocol;
        break;
      case "frame":
        if (this.stream === "inputs") break;
        if (Number.isSafeInteger(message.seq) && (this.seq === null || message.seq > this.seq)) this.seq = message.seq;
        break;
      case "batch":
        if (this.stream === "inputs" && Number.isSafeInteger(message.changes)) this.seq = message.changes;
        break;
      case "rowMoved":
        if (Number.isSafeInteger(message.version)) this.moves = message.version;
        break;
      default:
        break;
    }
  }

  /** The join's `resume` for a socket speaking `protocol`, or null when there is nothing to resume. */
  request(protocol, stream = "frames") {
    if (this.life === null || this.seq === null || protocol !== this.protocol || stream !== (this.stream ?? "frames")) return null;
    const resume = { life: this.life, seq: this.seq, moves: this.moves };
    if (this.grant) resume.grant = this.grant;
    return resume;
  }
}
const MAX_RETRY_MS = 5000;

/**
 * The WebSocket URL of a node ("host:port"), in the page's own scheme: ws(s)://node/ws, with
 * `join` (a join message) in its query when given. index.html's early socket builds the same URL.
 */
export function socketURL(node, loc = window.location, join = null) {
  const scheme = loc.protocol === "https:" ? "wss:" : "ws:";
  return `${scheme}//${node}/ws${join ? `?join=${encodeURIComponent(JSON.stringify(join))}` : ""}`;
}

/** Whether a join may go in the URL: not with a secret (a driver key, a grant), which request
 * lines would carry into proxies' logs. */
export function joinFitsURL(join) {
  return !join.driverKey && !join.resume?.grant;
}

/**
 * The WebSocket index.html opened before the modules loaded, taken once: when it goes to `url`
 * with `subprotocols` and is not closing, { socket, messages, openedAt } (the messages it
 * received meanwhile, each { data, at }), else null (and it is closed).
 */
export function adoptEarlySocket(url, subprotocols, early = window.scrollcastEarly) {
  const socket = early?.socket;
  if (!socket) return null;
  early.socket = null;
  if (early.url === url && early.protocols === subprotocols.join(",") && socket.readyState <= WebSocket.OPEN) {
    return { socket, messages: early.messages ?? [], openedAt: early.openedAt ?? performance.now() };
  }
  socket.close();
  return null;
}

/** Room names the protocol accepts: 1–64 of A–Z a–z 0–9 _ - . */
export function isValidRoom(name) {
  return typeof name === "string" && /^[A-Za-z0-9_.-]{1,64}$/.test(name);
}

/** The room from ?room=, or "demo" when absent or invalid. */
export function roomFromLocation(loc = window.location) {
  const room = new URLSearchParams(loc.search).get("room");
  return isValidRoom(room) ? room : "demo";
}

/**
 * The scene asked for with ?scene= (used only if this join creates the room), or null. The server
 * knows the valid names and refuses others with a message naming them; this only keeps out text
 * that could not be a scene name at all.
 */
export function sceneFromLocation(loc = window.location) {
  const scene = new URLSearchParams(loc.search).get("scene");
  return typeof scene === "string" && /^[A-Za-z0-9_.-]{1,64}$/.test(scene) ? scene : null;
}

/**
 * One logical connection that survives socket losses.
 * `nodes` are the "host:port" addresses it may use (see nodes.js), `nodeIndex` the one to try
 * first. Every loss moves on to the next node, round robin, so a viewer of a node that died lands
 * on a surviving one; `node` is the node of the current socket, or of the next attempt.
 * `driverKey` (a locked room's key) and `lock` go in every join, reconnects included: a room that
 * still exists ignores `lock`, and one that vanished (server restart) comes back locked.
 * Callbacks: onMessage(msg), onStatus({connected, joined, resumed, node, retryInMs, attempt, closeCode, closeReason, refused}).
 * Every join asks to be `resumable`; after a loss the next join asks to `resume` (same protocol).
 * A join the server refuses (close 1008 before any snapshot, e.g. an unknown scene) is not retried:
 * asking again would be refused again; the status then has `refused` set to the server's reason.
 */
/** Any other message that cannot be read carried state (row order, texts, presence) the page
 * now lacks for good: it reconnects and starts again from a fresh snapshot (docs/protocol.md,
 * "Bad messages"). Browsers may close only with 1000 or 3000–4999. */
export class Connection {
  constructor({ nodes, nodeIndex = 0, room, scene = null, driverKey = null, lock = false, subprotocols = SUBPROTOCOLS,
                inputs = false, onMessage, onStatus, onTexts = null }) {
    this.inputs = inputs;     // ask for `applied` messages (the page's replica, docs/protocol.md "Inputs applied")
    this.stream = null;       // {engine}: ask for the inputs stream (replica/stream.js sets it; null: frames)
    this.onTexts = onTexts;   // version 2's `texts` bodies, for the replica's copy of the server's table
    this.nodes = nodes;
    this.nodeIndex = nodeIndex;
    this.subprotocols = subprotocols;
    this.protocol = null;   // the subprotocol the server chose, once open
    this.room = room;
    this.scene = scene;
    this.driverKey = driverKey;
    this.lock = lock;
    this.onMessage = onMessage;
    this.onStatus = onStatus;
    this.socket = null;
    this.joined = false;
    this.attempt = 0;
    this.retryTimer = null;
    this.stopped = false;
    this.position = new ResumePoint();
    this.joinSentAt = null;
    this.joinRoundTrip = null;   // ms from the join going out to its snapshot or resumed (the replica's first lead)
    this.ping = new LinkPing();   // the quickest ping of this socket: ping.best (ms, or null)
    this.joinsInURL = true;      // false once a server ignored a join in the URL
    this.joinInURL = null;       // the join the current socket carries in its URL, if any
    // Version 2's texts outlive a socket: a resume sends only the texts missed.
    this.decoder = new WireV2Decoder();
  }

  start() {
    this.stopped = false;
    this.open();
  }

  /** Closes for good (no reconnect). */
  stop() {
    this.stopped = true;
    clearTimeout(this.retryTimer);
    if (this.socket) this.socket.close(1000);
  }

  get node() {
    return this.nodes[this.nodeIndex];
  }

  /**
   * Whether to ask for `applied` messages. The join is the only place to ask, so a change joins
   * again at once (resuming: the page keeps its picture and gets only what it missed).
   */
  setInputs(on) {
    if (this.inputs === on) return;
    this.inputs = on;
    // A join already sent (in the URL, or on an open socket) asked the other way: join again.
    // One not sent yet will ask as set now.
    if (this.socket && (this.joinInURL || this.socket.readyState === WebSocket.OPEN)) {
      this.socket.close(4001, "joining again with other options");
    }
  }

  /**
   * The page's join (docs/protocol.md, `join`), built here only; the resume is asked for a socket
   * speaking `protocol`. index.html's early socket mirrors the first one.
   */
  join(protocol) {
    const join = { type: "join", room: this.room, client: "scrollcast-page/1" };
    if (this.scene) join.scene = this.scene;
    if (this.driverKey) join.driverKey = this.driverKey;
    if (this.lock) join.lock = true;
    // With them, how far the room's history is complete (a watcher draws only that far).
    if (this.inputs) Object.assign(join, { inputs: true, complete: true });
    if (this.stream) Object.assign(join, { stream: "inputs", engine: this.stream.engine });
    if (this.stream?.batchMs != null) join.batchMs = this.stream.batchMs;
    const resume = this.position.request(protocol, this.stream ? "inputs" : "frames");
    if (resume) join.resume = resume;
    else join.resumable = true;
    return join;
  }

  get isOpen() {
    return this.socket !== null && this.socket.readyState === WebSocket.OPEN;
  }

  /** Sends one message object; returns false when there is no joined socket to send on. */
  send(message) {
    if (!this.isOpen || !this.joined) return false;
    this.socket.send(JSON.stringify(message));
    return true;
  }

  open() {
    // A resume goes in the URL before the server has chosen a protocol: it is asked for the one
    // the last socket spoke (the server takes the first offered it speaks, the same again).
    const urlJoin = this.joinsInURL ? this.join(this.position.protocol) : null;
    const joinInURL = urlJoin && joinFitsURL(urlJoin) ? urlJoin : null;
    const url = socketURL(this.node, window.location, joinInURL);
    let socket, early;
    try {
      early = adoptEarlySocket(url, this.subprotocols);
      socket = early?.socket ?? new WebSocket(url, this.subprotocols);
    } catch (error) {
      this.scheduleRetry({ code: 0, reason: String(error) });
      return;
    }
    this.socket = socket;
    this.joined = false;
    this.joinInURL = joinInURL;
    this.joinSentAt = joinInURL ? early?.openedAt ?? performance.now() : null;
    socket.binaryType = "arraybuffer";
    const decoder = this.decoder;
    let lastError = null;   // the server's `error` message, sent just before it closes
    let received = false;
    socket.onopen = () => {
      this.protocol = socket.protocol;
      if (joinInURL?.resume && socket.protocol !== this.position.protocol) {
        return this.dropUnreadable(socket, "a resume asked in another protocol than the server chose");
      }
      if (!joinInURL) {
        socket.send(JSON.stringify(this.join(socket.protocol)));
        this.joinSentAt = performance.now();
      }
      this.report({ connected: true, joined: false });
    };
    socket.onmessage = (event) => {
      received = true;
      // When it came, not when it is read: messages the early socket held, or that queued behind
      // a long handler, are read late (seen: a beat read 118 ms after it came, behind the
      // snapshot's handler, put the driver's clock that far behind and its first drag late).
      const arrivedAt = event.at ?? performance.now();
      let message;
      if (typeof event.data === "string") {
        try {
          message = JSON.parse(event.data);
        } catch {
          return this.dropUnreadable(socket, "a message that is not JSON");
        }
      } else {
        try {
          message = decoder.decode(event.data);
        } catch (error) {
          // A frame that does not decode is replaced by the next one (frames depend on no other).
          if (new Uint8Array(event.data)[0] === 2) {
            console.warn(`scrollcast: skipping a frame that does not decode: ${error.message}`);
            return;
          }
          return this.dropUnreadable(socket, `a message that does not decode (${error.message})`);
        }
        // Texts only teach the decoder (and the replica); frames arrive with them filled in.
        if (message.type === "texts") { this.onTexts?.(message.body); return; }
        if (message.type === "frame") Object.defineProperty(message, "wire", { value: new Uint8Array(event.data) });
      }
      if (!message || typeof message.type !== "string") return;
      Object.defineProperty(message, "arrivedAt", { value: arrivedAt });
      this.position.track(message, socket.protocol);
      if (message.type === "snapshot" || message.type === "resumed") {
        // The join worked: the next loss starts the backoff afresh.
        this.joined = true;
        this.attempt = 0;
        // A join in the URL counts from the socket's making: the upgrade's round trip, and
        // before it TCP's handshake where that is not at hand; so at most two round trips, never
        // less than one (a lead too short makes late inputs; one too long is only held).
        if (this.joinSentAt !== null) this.joinRoundTrip = arrivedAt - this.joinSentAt;
        this.ping.start(socket);
        this.report({ connected: true, joined: true, resumed: message.type === "resumed" });
      }
      if (message.type === "pong") this.ping.pong(message.id, arrivedAt);
      if (message.type === "error") {
        lastError = String(message.message ?? "");
        console.warn("scrollcast server error:", message.message);
      }
      this.onMessage(message);
    };
    socket.onclose = (event) => {
      if (this.socket !== socket) return;
      this.ping.stop();
      // A server older than joins in the URL waits for a join message until its deadline.
      const urlJoinIgnored = joinInURL && !received && event.code === 1008 && event.reason.startsWith("no join within");
      const joinRefused = !this.joined && event.code === 1008 && !urlJoinIgnored;
      this.socket = null;
      this.joined = false;
      this.joinInURL = null;
      if (urlJoinIgnored) this.joinsInURL = false;
      if (joinRefused) {
        this.stopped = true;
        this.report({ connected: false, joined: false, closeCode: event.code, closeReason: event.reason,
                      refused: lastError ?? event.reason ?? "join refused" });
        return;
      }
      if (!this.stopped) this.scheduleRetry({ code: event.code, reason: event.reason });
    };
    // onerror is always followed by onclose, which does the work.
    socket.onerror = () => {};
    // The socket index.html opened early may be open already, and have received the snapshot.
    if (socket.readyState === WebSocket.OPEN) socket.onopen();
    for (const message of early?.messages ?? []) if (socket.readyState === WebSocket.OPEN) socket.onmessage(message);
  }

  /** After an unreadable message (other than a frame) the page's state is in doubt: it starts
   * again from a fresh snapshot rather than resuming from it (docs/protocol.md, "Bad messages"). */
  dropUnreadable(socket, what) {
    console.warn(`scrollcast: reconnecting after ${what}`);
    this.position = new ResumePoint();
    socket.close(4000, "client could not read a message");
  }

  scheduleRetry({ code, reason }) {
    // The node just lost may be gone for good, so the next attempt goes elsewhere. The backoff
    // doubles once per round of the list, not per attempt: moving to another node is quick (the
    // first retry, to the next node, comes after FIRST_RETRY_MS), while a cluster that is down
    // altogether is still not hammered. With one node this is the plain per-attempt backoff.
    // A connection that was joined is tried again at once (a dropped link usually comes back),
    // which is what lets a resume land before anyone sees a gap.
    this.nodeIndex = (this.nodeIndex + 1) % this.nodes.length;
    const round = Math.floor(Math.max(0, this.attempt - 1) / this.nodes.length);
    const base = Math.min(MAX_RETRY_MS, FIRST_RETRY_MS * 2 ** round);
    // Jitter spreads the reconnects of many viewers after a server restart.
    const delay = this.attempt === 0 ? 0 : Math.round(base * (0.75 + Math.random() * 0.25));
    this.attempt += 1;
    this.report({ connected: false, joined: false, retryInMs: delay, attempt: this.attempt, closeCode: code, closeReason: reason });
    clearTimeout(this.retryTimer);
    this.retryTimer = setTimeout(() => this.open(), delay);
  }

  report(status) {
    this.onStatus({ node: this.node, retryInMs: 0, attempt: this.attempt, closeCode: null, closeReason: "", refused: null,
                    resumed: false, ...status });
  }
}
