// Wires the page together: connection → state → one animation-frame loop → renderer, and canvas
// input → server. This is the only place that calls requestAnimationFrame.

import { Connection, roomFromLocation, sceneFromLocation, subprotocolsFromLocation } from "./connection.js";
import { nodesFromLocation } from "./nodes.js";
import { InputSender, attachInput } from "./input.js";
import { Renderer } from "./draw.js";
import { Controls, attachSharing } from "./controls.js";
import { PageStats } from "./stats.js";
import { PageMeasures } from "./measure/page-measures.js";
import { keyFromFragment, lockFromLocation, scrubLocation, storeKey, storedKey } from "./driving.js";
import { ReconnectingIndicator } from "./reconnecting.js";
import { createReplica, testHooks } from "./replica/setup.js";
import { createPageState, moveRow } from "./page-state.js";

const room = roomFromLocation();
const requestedScene = sceneFromLocation();
// A co-driver link's #key= wins over a key this tab kept from before; both leave the address bar.
const linkKey = keyFromFragment(window.location.hash);
const startKey = linkKey ?? storedKey(room);
const askedLock = lockFromLocation();
const { nodes, start: firstNode } = nodesFromLocation();
scrubLocation();
const canvas = document.getElementById("view");
const phone = document.getElementById("phone");
const stage = document.getElementById("stage");

const state = createPageState({ room, requestedScene, sentDriverKey: Boolean(startKey), askedLock, nodes });

let scene = null;
let pendingFrame = null;      // newest frame not yet drawn: never a queue
let redrawWanted = false;     // something besides a new frame changed the picture
let rafHandle = 0;
let laidOutViewport = null;   // the viewport size the phone frame was last fitted to
let lastOwnAppliedId = null;  // our newest input id a frame named
let replicaDrawTime = null;   // the room time of the replica's picture on screen (null: a server frame's)

const measures = new PageMeasures();   // what this viewer saw (docs/measures.md): state.drawn, the measures of the picture
// The room's engine in the page (null with ?replica=off or no WebAssembly); once it cannot run, the page stops asking for `applied`.
const replica = createReplica(state.replica, { measures, asking: (on) => connection.setInputs(on) });
let replicaStartQueued = false;
if (replica) replica.onStart = () => scheduleDraw();
Object.defineProperty(state, "drawn", { get: () => measures.record.entries(), enumerable: false });

const renderer = new Renderer(canvas, {
  onNeedsRedraw: () => {
    state.images = renderer.imageStatus();
    redrawWanted = true;
    scheduleDraw();
  },
});

const connection = new Connection({
  nodes,
  nodeIndex: firstNode,
  room,
  scene: requestedScene,
  driverKey: startKey,
  // Holding a key means the room was locked: should it vanish, our rejoin recreates it locked.
  lock: askedLock || Boolean(startKey),
  subprotocols: subprotocolsFromLocation(),
  inputs: replica !== null,
  onTexts: (body) => replica?.texts(body),
  onMessage: handleMessage,
  onStatus: handleStatus,
});

const sender = new InputSender({
  transmit: (message) => {
    if (!connection.send(message)) return false;
    state.inputsSent += 1;
    state.lastInputId = message.id;
    state.inputsByKind[message.kind] = (state.inputsByKind[message.kind] ?? 0) + 1;
    measures.inputSent(message);
    if (replica?.ownInput(message, performance.now())) scheduleDraw();
    return true;
  },
  // Stamped as sent, not at the event's own time: on a busy page that can be long past (docs/wasm.md).
  stamp: () => replica?.stamp(performance.now()) ?? null,
});

const input = attachInput({
  canvas,
  sender,
  toLogical: (x, y) => renderer.toLogical(x, y, state.lastFrame),
});

const controls = new Controls({
  room,
  onScrollToRow: ({ section, row, position, animated }) =>
    sender.sendNow("scrollToRow", { section, row, position, animated }, performance.now()) !== null,
  onReducedMotion: (on) => {
    state.reducedMotion = on;
    sender.sendNow("reducedMotion", { on }, performance.now());
  },
});
state.reducedMotion = controls.reducedMotion;
const stats = new PageStats({ state, sender, controls, measures });   // the overlay's figures
controls.setDriving("unknown");
attachSharing({ connection, controls, state });   // asking to drive, exploring (docs/protocol.md, "Sharing")

const reconnecting = new ReconnectingIndicator({
  show: () => {
    state.reconnecting = true;
    state.reconnectingShownCount += 1;
    document.body.classList.add("disconnected");
    showLostBanner(lastLostStatus);
  },
  hide: () => {
    state.reconnecting = false;
    document.body.classList.remove("disconnected");
  },
});
let lastLostStatus = null;

function handleStatus(status) {
  state.connected = status.connected;
  state.node = status.node;
  state.protocol = status.connected ? connection.protocol : state.protocol;
  const wasJoined = state.joined;
  state.joined = status.joined;
  state.reconnectAttempt = status.attempt;
  if (status.joined) {
    if (!wasJoined) state.lastGapMs = reconnecting.back().gap;
  } else if (state.snapshots > 0 && !status.refused) {
    // Lost after having joined: keep the picture, and say so only if it lasts.
    lastLostStatus = status;
    reconnecting.lost();
    if (state.reconnecting) showLostBanner(status);
    return;
  } else {
    document.body.classList.toggle("disconnected", true);
  }
  if (status.joined) document.body.classList.remove("disconnected");
  if (status.refused) {
    state.joinRefused = status.refused;
    controls.setBanner(`The server refused to join room “${room}”: ${status.refused}`);
    if (!scene) { redrawWanted = true; scheduleDraw(); }
  } else if (status.joined) {
    controls.setBanner(null);
  } else if (status.connected) {
    controls.setBanner(`Joining room “${room}”…`);
  } else {
    showLostBanner(status);
  }
}

function showLostBanner(status) {
  if (!status) return;
  if (status.connected) {
    controls.setBanner(`Reconnecting to room “${room}”…`);
  } else {
    const seconds = Math.max(1, Math.round(status.retryInMs / 1000));
    const why = status.closeCode === 1013 ? "Server is full. " : status.closeCode === 1001 ? "Server restarting. " : "";
    const where = nodes.length > 1 ? ` to ${status.node}` : "";
    const when = status.retryInMs > 0 ? ` in ${seconds} s (attempt ${status.attempt})` : "";
    controls.setBanner(`Disconnected. ${why}Reconnecting${where}${when}…`);
  }
  if (!scene) redrawWanted = true;
  scheduleDraw();
}

function handleMessage(message) {
  if (["frame", "applied", "beat"].includes(message.type)) measures.arrived(message.t, performance.now());
  switch (message.type) {
    case "snapshot": return adoptSnapshot(message);
    case "resumed": return adoptResume(message);
    case "frame": return receiveFrame(message);
    case "presence": return setPresence(message.viewers, message.driver);
    case "rowMoved": replica?.rowMoved(message); return applyRowMove(message);
    case "applied": replica?.applied(message, performance.now()); return scheduleDraw();
    case "beat": return replica?.beat(message, performance.now());
    case "refused": return handleRefused(message);
    case "error":
      state.errors.push(String(message.message ?? ""));
      return undefined;
    default:
      return undefined;   // newer servers may add types; ignore them
  }
}

function adoptSnapshot(message) {
  replica?.snapshot(message, connection.joinRoundTrip);
  scene = message.scene ?? {};
  state.snapshots += 1;
  state.viewer = message.viewer ?? null;
  state.order = (scene.sections ?? []).map((section) => [...(section.rows ?? [])]);
  state.rowMoveVersion = 0;
  state.lastReceivedSeq = null;
  input.connectionReset();
  measures.connectionReset();
  measures.roundTrip(connection.joinRoundTrip);
  state.sceneName = typeof message.sceneName === "string" ? message.sceneName : "demo";
  renderer.setScene(scene, navTitle(state.sceneName, message.room ?? room));
  state.images = renderer.imageStatus();
  controls.setScene(scene, state.sceneName);
  setPresence(message.viewers, message.driver);
  window.scrollcast.scene = scene;
  layoutStage();
  adoptDriverKey(message.driverKey, message.locked === true);
  if (state.reducedMotion) sender.sendNow("reducedMotion", { on: true }, performance.now());
  if (message.frame) receiveFrame(message.frame);
}

/** Back where we were: the scene, order and picture stay; the rowMoved and frame that follow bring them up to date. */
function adoptResume(message) {
  replica?.resumed(message);
  state.resumes += 1;
  state.viewer = message.viewer ?? null;
  input.connectionReset();
  measures.connectionReset();
  measures.roundTrip(connection.joinRoundTrip);
  setPresence(message.viewers, message.driver);
  adoptDriverKey(message.driverKey, message.locked === true);
  if (state.reducedMotion) sender.sendNow("reducedMotion", { on: true }, performance.now());
}

/**
 * The snapshot's driverKey says this viewer may drive a locked room. Reconnects send it, and the
 * tab remembers it across a reload. Without one, `locked` says whether this viewer only watches;
 * if we sent a key and the room is locked, it was not accepted.
 */
function adoptDriverKey(key, locked) {
  if (typeof key === "string" && key) {
    connection.driverKey = key;
    connection.lock = true;
    storeKey(room, key);
    state.sentDriverKey = true;
    state.driveMode = "key";
    controls.setDriving("key", key);
  } else {
    if (connection.driverKey) storeKey(room, null);   // stale or wrong: do not offer it again on reload
    state.driveMode = !locked ? "open" : connection.driverKey ? "rejected" : "watch";
    controls.setDriving(state.driveMode);
  }
}

/** A #key= pasted into the address bar of an open page: used from the next join on. */
function adoptKeyFromFragment() {
  const key = keyFromFragment(window.location.hash);
  scrubLocation();
  if (!key || key === connection.driverKey) return;
  connection.driverKey = key;
  connection.lock = true;
  state.sentDriverKey = true;
  controls.toast("Joining again with the co-driver key…");
  connection.stop();
  connection.start();
}

/** The navigation bar's title: the seed's own "Demo Table" for its table, else the room. */
function navTitle(sceneName, roomName) {
  return sceneName === "seed-table" ? "Demo Table" : `Scrollcast · ${roomName}`;
}

function receiveFrame(frame) {
  if (typeof frame.seq === "number" && state.lastReceivedSeq !== null) {
    if (frame.seq <= state.lastReceivedSeq) return;   // stale or duplicate
    state.seqGaps += frame.seq - state.lastReceivedSeq - 1;
  }
  if (typeof frame.seq === "number") state.lastReceivedSeq = frame.seq;
  const applied = frame.input;
  if (applied && applied.viewer === state.viewer && applied.id !== lastOwnAppliedId) {
    lastOwnAppliedId = applied.id;
    state.ownInputsApplied += 1;
  }
  state.framesReceived += 1;
  // With the replica running, the server's frame is checked, not drawn (on a mismatch it is).
  const verdict = replica?.serverFrame(frame, performance.now());
  if (verdict === "identical") {
    if (frame.animating === false) controls.announcePosition(frame);
    return scheduleDraw();
  }
  replica?.continueNumbering(frame.seq);
  if (pendingFrame) state.framesSkipped += 1;
  pendingFrame = frame;
  scheduleDraw();
}

function setPresence(viewers, driver) {
  state.viewers = Number.isFinite(viewers) ? viewers : state.viewers;
  state.driver = driver ?? null;
  controls.setPresence({ viewers: state.viewers, driver: state.driver, me: state.viewer });
}

function applyRowMove(move) {
  if (!moveRow(state.order, move)) return;
  state.rowMoves += 1;
  state.rowMoveVersion = Number.isFinite(move.version) ? move.version : state.rowMoveVersion + 1;
  if (scene?.sections) {
    scene.sections.forEach((section, i) => { section.rows = [...state.order[i]]; });
    controls.setScene(scene, state.sceneName);
  }
}

function handleRefused(message) {
  state.refusedCount += 1;
  state.lastRefused = message;
  input.refused(message.input ?? null);
  replica?.refused(message.input);
  measures.refused(message.input);
  if (message.code === "locked" && state.driveMode !== "key") {
    state.driveMode = "watch";
    controls.setDriving("watch");
  }
  if (message.code === "unavailable") {
    // The server could not save a row move (disk full or read-only): the row went back; not this viewer's fault.
    controls.toast("Moving rows is paused: the server can't save moves right now. Scrolling still works.");
    return;
  }
  const reason = message.reason || "Someone else is driving; try again when their gesture ends.";
  controls.toast(`Input refused: ${reason}`);
}

function scheduleDraw() {
  if (rafHandle) return;
  rafHandle = requestAnimationFrame(drawNow);
}

function drawNow(vsync) {
  rafHandle = 0;
  const now = performance.now();
  // The replica's picture at this display frame's room time; else the server's newest (also in
  // place of a picture a replica that just stopped left on screen).
  const own = replica?.running ? replica.frameAt(vsync) : null;
  const frame = own ?? pendingFrame ?? (replicaDrawTime !== null ? replica.lastServerFrame : null);
  pendingFrame = null;
  if (frame) {
    replicaDrawTime = own ? replica.lastDrawTime : null;
    renderer.draw(frame);
    state.lastFrame = frame;
    state.framesDrawn += 1;
    stats.frameDrawn(frame, now);
    if (frame.animating === false) controls.announcePosition(frame);
    const v = renderer.viewport(frame);
    if (!laidOutViewport || v.width !== laidOutViewport.width || v.height !== laidOutViewport.height) layoutStage();
  } else if (redrawWanted) {
    if (state.lastFrame) renderer.draw(state.lastFrame);
    else renderer.drawWaiting(state.joinRefused ? "Join refused" : state.connected ? "Joining…" : "Connecting…");
  }
  redrawWanted = false;
  // A replica waiting to start does so after this picture, in a task of its own (never delaying it).
  if (replica && !replica.running && frame && !replicaStartQueued) {
    replicaStartQueued = true;
    setTimeout(() => { replicaStartQueued = false; replica.startIfDue(); }, 0);
  }
  if (state.lastFrame) {
    // A server frame is the room's own picture; the replica's is judged once its history is complete.
    const room = replicaDrawTime === null ? state.lastFrame.offset : NaN;
    const n = measures.displayFrame(now, vsync, state.lastFrame, state.viewer, frame !== null, room, replicaDrawTime !== null);
    if (replicaDrawTime !== null) replica.pictureDrawn(n, replicaDrawTime);
    // In motion every display frame is recorded: loop until a frame says motion stopped (or the link is lost).
    if (state.lastFrame.animating === true && state.joined) scheduleDraw();
  }
}

/** Sizes the phone frame to the room's aspect ratio within the stage, and the canvas to match. */
function layoutStage() {
  const viewport = renderer.viewport(state.lastFrame ?? pendingFrame);
  laidOutViewport = { width: viewport.width, height: viewport.height };
  const box = stage.getBoundingClientRect();
  const style = getComputedStyle(stage);
  const availableW = box.width - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight);
  const availableH = box.height - parseFloat(style.paddingTop) - parseFloat(style.paddingBottom);
  const scale = Math.max(0.1, Math.min(availableW / viewport.width, availableH / viewport.height));
  const width = Math.floor(viewport.width * scale);
  const height = Math.floor(viewport.height * scale);
  phone.style.width = `${width}px`;
  phone.style.height = `${height}px`;
  const dpr = window.devicePixelRatio || 1;
  renderer.resize(width, height, dpr);
  state.canvas = { cssWidth: width, cssHeight: height, dpr, width: canvas.width, height: canvas.height };
  redrawWanted = true;
  scheduleDraw();
}

new ResizeObserver(layoutStage).observe(stage);
window.addEventListener("resize", layoutStage);   // also fires when devicePixelRatio changes (zoom)
window.addEventListener("hashchange", adoptKeyFromFragment);
setInterval(() => stats.update(), 500);

window.scrollcast = {
  state,
  ...measures.api(),
  scene: null,
  /** The node ("host:port") of the current socket, or of the next attempt while disconnected. */
  get node() { return connection.node; },
  test: testHooks(replica),   // test-only: known-bad pictures the measures must read badly (docs/measures.md)
  /** Client (CSS px) coordinates of a viewport point: lets tests aim at rows. */
  clientPoint(x, y) {
    const rect = canvas.getBoundingClientRect();
    const { scale, left, top } = renderer.fit(renderer.viewport(state.lastFrame));
    return { x: rect.left + left + x * scale, y: rect.top + top + y * scale };
  },
};

layoutStage();
connection.start();
