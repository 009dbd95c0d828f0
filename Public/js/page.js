// The page (docs/design.md, "The page"): one object wiring connection → state → picture, and
// canvas input → server. Its state is explicit; `start()` begins everything and `destroy()` ends
// everything it began: the socket (closed for good, no resume), the animation frame, every
// listener (all take one AbortSignal), the timers and the resize observer. Importing it starts
// nothing; main.js makes the page's one instance and starts it.

import { Connection, roomFromLocation, sceneFromLocation, subprotocolsFromLocation } from "./connection.js";
import { nodesFromLocation } from "./nodes.js";
import { InputSender, attachInput } from "./input.js";
import { Renderer } from "./draw.js";
import { Controls } from "./controls.js";
import { attachSharing } from "./sharing.js";
import { PageStats } from "./stats.js";
import { PageMeasures } from "./measure/page-measures.js";
import { keyFromFragment, lockFromLocation, scrubLocation, storedKey } from "./driving.js";
import { ReconnectingIndicator } from "./reconnecting.js";
import { createReplica, replicaOffReason, testHooks } from "./replica/setup.js";
import { replicaOffReport } from "./replica/telemetry.js";
import { createPageState } from "./page-state.js";
import { PagePicture } from "./page-picture.js";
import { PageRoom } from "./page-room.js";
import { PageExplore } from "./explore.js";
import { InputsStream, streamFromLocation } from "./replica/stream.js";

const STATS_EVERY_MS = 500;   // the overlay's figures

/**
 * A Scrollcast page on `doc` (index.html's elements): `start()` once, `destroy()` to end it. The
 * running page is `window.scrollcast.page`, next to the state and hooks the tests read.
 */
export class ScrollcastPage {
  /** Builds nothing and touches nothing: `start()` does. `doc` holds the page's elements (index.html). */
  constructor({ doc = document } = {}) {
    this.doc = doc;
    this.phase = "new";         // "new", then "started", then "destroyed" (for good: start another page)
    this.state = null;          // window.scrollcast.state (page-state.js)
    this.listening = null;      // AbortController: every listener the page and its parts add takes its signal
    this.connection = null;
    this.replica = null;        // null with ?replica=off or no WebAssembly
    this.measures = null;
    this.renderer = null;
    this.picture = null;        // the one animation-frame loop (page-picture.js)
    this.room = null;           // what the room's messages say (page-room.js)
    this.stream = null;         // the inputs stream (replica/stream.js), with ?stream=inputs
    this.sender = null;
    this.input = null;
    this.controls = null;
    this.sharing = null;
    this.explore = null;        // exploring on one's own, following again (explore.js)
    this.stats = null;
    this.reconnecting = null;
    this.lastLostStatus = null; // the status a "reconnecting" banner shows once the loss lasts
    this.statsTimer = null;
    this.resizeObserver = null;
    this.hook = null;           // the window.scrollcast this page set
  }

  /** Connects, draws, listens: the page as it runs. A page starts once. */
  start() {
    if (this.phase !== "new") throw new Error(`scrollcast: a page starts once (this one is ${this.phase})`);
    this.phase = "started";
    const doc = this.doc;
    const room = roomFromLocation();
    // A co-driver link's #key= wins over a key this tab kept from before; both leave the address bar.
    const startKey = keyFromFragment(window.location.hash) ?? storedKey(room);
    const askedLock = lockFromLocation();
    const { nodes, start: firstNode } = nodesFromLocation();
    scrubLocation();
    const canvas = doc.getElementById("view");
    const stage = doc.getElementById("stage");
    this.listening = new AbortController();
    const signal = this.listening.signal;

    this.measures = new PageMeasures();   // what this viewer saw (docs/measures.md): state.drawn, the measures of the picture
    // The room's engine in the page; once it cannot run, the page stops asking for `applied`.
    this.replica = createReplica({ measures: this.measures, asking: (on) => {
      if (!on) this.stream?.fallback("the replica cannot run", true);
      this.connection.setInputs(on);
    } });
    const offReason = replicaOffReason();
    const offReport = replicaOffReport(offReason);
    this.state = createPageState({ room, requestedScene: sceneFromLocation(), sentDriverKey: Boolean(startKey), askedLock, nodes,
                                   replica: () => this.replica?.report() ?? offReport, drawn: () => this.measures.record.entries() });
    const state = this.state;
    if (this.replica) this.replica.onStart = () => { this.explore.prepare(); this.picture.schedule(); };

    this.renderer = new Renderer(canvas, {
      onNeedsRedraw: () => {
        state.images = this.renderer.imageStatus();
        this.picture.redraw();
      },
    });
    this.connection = new Connection({
      nodes,
      nodeIndex: firstNode,
      room,
      scene: state.requestedScene,
      driverKey: startKey,
      // Holding a key means the room was locked: should it vanish, our rejoin recreates it locked.
      lock: askedLock || Boolean(startKey),
      subprotocols: subprotocolsFromLocation(),
      inputs: this.replica !== null,
      onTexts: (body) => this.replica?.texts(body),
      onMessage: (message) => { this.room.receive(message); this.sharing.receive(message); },
      onStatus: (status) => this.#status(status),
    });
    this.sender = new InputSender({
      transmit: (message) => this.#transmit(message),
      // Stamped as sent, not at the event's own time: on a busy page that can be long past (docs/wasm.md).
      // An input for the viewer's own table (exploring) goes to no room: no stamp.
      stamp: () => (this.explore.drawing ? null : this.replica?.stamp(performance.now()) ?? null),
    });
    this.input = attachInput({ canvas, sender: this.sender, signal, toLogical: (x, y) => this.renderer.toLogical(x, y, state.lastFrame) });
    this.controls = new Controls({
      room,
      signal,
      onScrollToRow: ({ section, row, position, animated }) =>
        this.sender.sendNow("scrollToRow", { section, row, position, animated }, performance.now()) !== null,
      onReducedMotion: (on) => {
        state.reducedMotion = on;
        this.sender.sendNow("reducedMotion", { on }, performance.now());
      },
    });
    state.reducedMotion = this.controls.reducedMotion;
    this.stats = new PageStats({ state, sender: this.sender, controls: this.controls, measures: this.measures });
    this.controls.setDriving("unknown");
    // Asking to drive, exploring (docs/protocol.md, "Sharing").
    this.sharing = attachSharing({ connection: this.connection, controls: this.controls, state, signal });
    this.reconnecting = new ReconnectingIndicator({
      show: () => {
        state.reconnecting = true;
        state.reconnectingShownCount += 1;
        doc.body.classList.add("disconnected");
        this.#showLostBanner(this.lastLostStatus);
      },
      hide: () => {
        state.reconnecting = false;
        doc.body.classList.remove("disconnected");
      },
    });
    this.picture = new PagePicture({ renderer: this.renderer, state, replica: this.replica, stats: this.stats, controls: this.controls,
                                     measures: this.measures, stage, phone: doc.getElementById("phone"), canvas,
                                     overlay: doc.getElementById("overlay") });
    this.room = new PageRoom(this);
    // ?stream=inputs: the room's changes and beats instead of its frames (replica/stream.js).
    this.stream = this.replica && streamFromLocation() ? new InputsStream(this) : null;
    this.explore = new PageExplore(this, offReason);
    this.picture.explore = this.explore;
    this.sharing.onToggleView = () => this.explore.toggle();
    this.sharing.onCalledBack = (by) => this.explore.follow(by);

    const layout = () => this.picture.layout();
    this.resizeObserver = new ResizeObserver(layout);
    // Its border box: layout() sets its padding, which must not call layout() again.
    this.resizeObserver.observe(stage, { box: "border-box" });
    this.resizeObserver.observe(doc.getElementById("overlay"));   // it wraps to more lines as figures come
    window.addEventListener("resize", layout, { signal });   // also fires when devicePixelRatio changes (zoom)
    window.addEventListener("hashchange", () => this.#adoptKeyFromFragment(), { signal });
    this.statsTimer = setInterval(() => { this.stats.update(); this.explore.render(); }, STATS_EVERY_MS);
    this.hook = this.#testHook();
    window.scrollcast = this.hook;
    this.picture.layout();
    // The inputs stream's join names the engine's version: it waits for the engine.
    if (this.stream) this.stream.join().finally(() => { if (this.phase === "started") this.connection.start(); });
    else this.connection.start();
    return this;
  }

  /**
   * Ends everything start() began, for good: the socket closes with 1000 and is not resumed, no
   * animation frame or timer runs again, every listener is removed, window.scrollcast goes. The
   * picture stays as it was. Safe to call more than once, or before start().
   */
  destroy() {
    const was = this.phase;
    this.phase = "destroyed";
    if (was !== "started") return;
    this.connection.stop();
    this.replica?.stop();
    this.picture.stop();
    this.listening.abort();
    this.resizeObserver.disconnect();
    clearInterval(this.statsTimer);
    this.sender.discardPending();
    this.reconnecting.stop();
    this.controls.stop();
    this.sharing.stop();
    if (window.scrollcast === this.hook) delete window.scrollcast;
  }

  /** Sends one input (InputSender's transmit): counted in the state and measures, drawn at once by the replica. */
  #transmit(message) {
    const { state } = this;
    if (this.explore.takes(message)) {   // for the viewer's own table, or dropped during the ease back: never sent
      this.picture.schedule();
      return true;
    }
    if (!this.connection.send(message)) return false;
    state.inputsSent += 1;
    state.lastInputId = message.id;
    state.inputsByKind[message.kind] = (state.inputsByKind[message.kind] ?? 0) + 1;
    this.measures.inputSent(message);
    if (this.replica?.ownInput(message, performance.now())) this.picture.schedule();
    return true;
  }

  #status(status) {
    const { state, controls, connection } = this;
    if (!status.connected) this.stream?.closed(status);
    state.connected = status.connected;
    state.node = status.node;
    state.protocol = status.connected ? connection.protocol : state.protocol;
    const wasJoined = state.joined;
    state.joined = status.joined;
    state.reconnectAttempt = status.attempt;
    if (!status.connected) state.lastRetryInMs = status.retryInMs;
    if (status.joined) {
      if (!wasJoined) state.lastGapMs = this.reconnecting.back().gap;
    } else if (state.snapshots > 0 && !status.refused) {
      // Lost after having joined: keep the picture, and say so only if it lasts.
      this.lastLostStatus = status;
      this.reconnecting.lost();
      if (state.reconnecting) this.#showLostBanner(status);
      return;
    } else {
      this.doc.body.classList.toggle("disconnected", true);
    }
    if (status.joined) this.doc.body.classList.remove("disconnected");
    if (status.refused) {
      state.joinRefused = status.refused;
      controls.setBanner(`The server refused to join room “${state.room}”: ${status.refused}`);
      if (!this.room.scene) this.picture.redraw();
    } else if (status.joined) {
      controls.setBanner(null);
    } else if (status.connected) {
      controls.setBanner(`Joining room “${state.room}”…`);
    } else {
      this.#showLostBanner(status);
    }
  }

  #showLostBanner(status) {
    if (!status) return;
    const { state } = this;
    if (status.connected) {
      this.controls.setBanner(`Reconnecting to room “${state.room}”…`);
    } else {
      const seconds = Math.max(1, Math.round(status.retryInMs / 1000));
      const why = status.closeCode === 1013 ? "Server is full. " : status.closeCode === 1001 ? "Server restarting. " : "";
      const where = state.nodes.length > 1 ? ` to ${status.node}` : "";
      const when = status.retryInMs > 0 ? ` in ${seconds} s (attempt ${status.attempt})` : "";
      this.controls.setBanner(`Disconnected. ${why}Reconnecting${where}${when}…`);
    }
    if (!this.room.scene) this.picture.redraw();
    else this.picture.schedule();
  }

  /** A #key= pasted into the address bar of an open page: used from the next join on. */
  #adoptKeyFromFragment() {
    const key = keyFromFragment(window.location.hash);
    scrubLocation();
    const { connection } = this;
    if (!key || key === connection.driverKey) return;
    connection.driverKey = key;
    connection.lock = true;
    this.state.sentDriverKey = true;
    this.controls.toast("Joining again with the co-driver key…");
    connection.stop();
    connection.start();
  }

  /** window.scrollcast: the tests' hook (the state, the measures' API, test-only hooks) and this page. */
  #testHook() {
    const page = this;
    return {
      page,
      state: this.state,
      ...this.measures.api(),
      /** The snapshot's scene (null before the first). */
      get scene() { return page.room.scene; },
      /** The node ("host:port") of the current socket, or of the next attempt while disconnected. */
      get node() { return page.connection.node; },
      test: testHooks(this.replica),   // test-only: known-bad pictures the measures must read badly (docs/measures.md)
      /** Explore on one's own, follow again, call everyone back: what the page's buttons do (explore.js). */
      explore: () => this.explore.explore(),
      follow: () => this.explore.follow(),
      callBack: () => this.sharing.callBack(),
      /** Client (CSS px) coordinates of a viewport point: lets tests aim at rows. */
      clientPoint: (x, y) => this.picture.clientPoint(x, y),
    };
  }
}
