// Sharing a room (docs/protocol.md, "Sharing"): a watcher of a locked room asks to drive, key
// holders see the requests and grant or deny them; a viewer explores on its own or follows the
// room, and whoever may calls everyone back. The key never enters this: a grant is the server's.
// This module keeps what the page knows of it in `state.sharing` and draws its controls.

const $ = (id) => document.getElementById(id);

/**
 * The page's sharing, wired to its connection and controls: it sends through the connection and
 * keeps a grant for the connection's resumes. The page hands it every message (`receive`) after
 * reading it itself, so the viewer id and who may drive are current. Returns the `Sharing`.
 */
export function attachSharing({ connection, controls, state, signal }) {
  const sharing = new Sharing({
    send: (message) => {
      sharing.lastSent = message;
      return connection.send(message);
    },
    state,
    signal,
    toast: (text) => controls.toast(text),
    onGranted: (grant) => { connection.position.grant = grant; },
    onDriving: (mode) => { state.driveMode = mode; controls.setDriving(mode); },
  });
  controls.onDrivingChanged = () => sharing.render();
  return sharing;
}

export class Sharing {
  /**
   * `send(message)` sends one client message (false when not joined); `state` is the page state
   * (it gets `sharing`); `toast(text)` shows a short message; `onGranted(grant)` keeps this
   * viewer's grant for a resume; `onDriving(mode)` when a grant changes who may drive here.
   * Its listeners go when `signal` aborts, and `stop()` ends its countdown: the page's destroy().
   */
  constructor({ send, state, toast, onGranted, onDriving, signal }) {
    this.send = send;
    this.state = state;
    this.toast = toast;
    this.onGranted = onGranted;
    this.onDriving = onDriving;
    this.requests = new Map();   // asker → performance.now() it lapses at (key holders' list)
    this.ticker = null;
    this.signal = signal;
    this.lastSent = null;        // the last sharing message sent (a refusal with no input answers it)
    // The page's explore.js takes these (it switches the picture); alone, they only say so to the server.
    this.onToggleView = () => this.setView(this.state.sharing.viewMode === "explore" ? "follow" : "explore");
    this.onCalledBack = () => this.setView("follow");
    state.sharing = {
      viewMode: "follow",        // "follow" or "explore": what this page told the server
      exploring: 0,              // viewers exploring, from presence
      following: 0,              // the others
      granted: [],               // viewers driving by a grant, from presence
      asking: false,             // this viewer's request is open
      lastAnswer: null,          // "granted", "denied" or "expired": the last answer to our request
      requests: [],              // askers a key holder sees, oldest first
      calledBackBy: null,        // who last called this page back
    };
    $("ask-drive").addEventListener("click", () => this.ask(), { signal });
    $("view-toggle").addEventListener("click", () => this.onToggleView(), { signal });
    $("call-back").addEventListener("click", () => this.callBack(), { signal });
    this.render();
  }

  /** Ends the requests' countdown (the page's destroy(); its signal took the listeners). */
  stop() {
    clearInterval(this.ticker);
    this.ticker = null;
  }

  /** A message from the server: sharing's own, presence, and a new connection's first. */
  receive(message) {
    const s = this.state.sharing;
    const mine = message.viewer === this.state.viewer;
    switch (message.type) {
      case "snapshot":
      case "resumed":
        return this.connectionReset(message);
      case "presence":
        return this.presence(message);
      case "asked":
        if (mine) s.asking = true;
        else this.requests.set(message.viewer, performance.now() + (message.expiresIn ?? 0));
        break;
      case "granted":
      case "denied":
      case "expired":
        this.requests.delete(message.viewer);
        if (mine) {
          s.asking = false;
          s.lastAnswer = message.type;
          if (message.type === "granted" && typeof message.grant === "string") this.onGranted(message.grant);
          this.toast({ granted: `${message.by} lets you drive.`, denied: `${message.by} said no to driving.`,
                       expired: "Nobody answered your request to drive." }[message.type]);
        }
        break;
      case "follow":
        s.calledBackBy = message.by ?? null;
        if (s.viewMode === "explore") {
          this.onCalledBack(message.by ?? null);
          this.toast(`${message.by} called everyone back: following the room.`);
        }
        break;
      default:
        return;
    }
    this.render();
  }

  /** Presence's counts and grants. */
  presence(message) {
    const s = this.state.sharing;
    s.exploring = Number.isSafeInteger(message.exploring) ? message.exploring : 0;
    s.following = Math.max(0, (message.viewers ?? 0) - s.exploring);
    s.granted = Array.isArray(message.granted) ? message.granted : [];
    const grantedHere = s.granted.includes(this.state.viewer);
    if (grantedHere && this.state.driveMode === "watch") this.onDriving("granted");
    else if (!grantedHere && this.state.driveMode === "granted") this.onDriving("watch");
    this.render();
  }

  /**
   * A new connection (its `snapshot` or `resumed`), or the room made again (a cluster's new
   * owner sends a snapshot on the same connection): requests and our own request were the old
   * one's and lapsed with it; the counts start from its viewers, and a presence follows if anyone
   * explores.
   */
  connectionReset(joined) {
    this.requests.clear();
    if (this.state.sharing.asking) {
      this.state.sharing.lastAnswer = "expired";
      this.toast("Your request to drive lapsed with the connection; ask again.");
    }
    this.state.sharing.asking = false;
    this.presence({ viewers: joined.viewers });
    // The server counts a new connection as following: say so again if this page explores.
    if (this.state.sharing.viewMode === "explore") this.send({ type: "view", mode: "explore" });
    this.render();
  }

  ask() {
    if (this.send({ type: "ask" })) this.state.sharing.asking = true;
    this.render();
  }

  answer(viewer, grant) {
    this.send({ type: grant ? "grant" : "deny", viewer });
  }

  /**
   * Tells the server this viewer follows or explores; false when not sent. Following holds even
   * unsent: a new connection's viewer follows until it says otherwise.
   */
  setView(mode) {
    const sent = this.send({ type: "view", mode });
    if (sent || mode === "follow") this.state.sharing.viewMode = mode;
    this.render();
    return sent;
  }

  /** Asks every explorer to follow the room (a key holder, or anyone in an open room). */
  callBack() {
    return this.send({ type: "callBack" });
  }

  holdsKey() {
    return this.state.driveMode === "key";
  }

  /** Who may call everyone back: a key holder, or anyone in an open room. */
  mayCallBack() {
    return this.state.driveMode === "key" || this.state.driveMode === "open";
  }

  render() {
    const s = this.state.sharing;
    const now = performance.now();
    for (const [viewer, until] of this.requests) if (until <= now) this.requests.delete(viewer);
    s.requests = [...this.requests.keys()];

    const askBox = $("ask-drive-box");
    askBox.hidden = this.state.driveMode !== "watch";
    $("ask-drive").disabled = s.asking;
    $("ask-status").textContent = s.asking ? "Asked; waiting for a key holder…" : "";

    const list = $("drive-requests");
    $("drive-requests-box").hidden = !this.holdsKey() || s.requests.length === 0;
    list.replaceChildren(...s.requests.map((viewer) => this.requestItem(viewer, this.requests.get(viewer) - now)));

    $("view-toggle").textContent = s.viewMode === "explore" ? "Follow the room" : "Explore on your own";
    $("call-back").hidden = !this.mayCallBack() || s.exploring === 0;
    $("view-counts").textContent = `${s.following} following · ${s.exploring} exploring`;

    // The countdowns tick while any request is listed.
    if (s.requests.length > 0 && this.ticker === null && !this.signal?.aborted) this.ticker = setInterval(() => this.render(), 1000);
    if (s.requests.length === 0 && this.ticker !== null) { clearInterval(this.ticker); this.ticker = null; }
  }

  requestItem(viewer, leftMs) {
    const item = document.createElement("li");
    item.dataset.viewer = viewer;
    const label = document.createElement("span");
    label.textContent = `${viewer} asks to drive (${Math.max(0, Math.ceil(leftMs / 1000))} s) `;
    const grant = document.createElement("button");
    grant.type = "button";
    grant.className = "grant";
    grant.textContent = "Grant";
    grant.addEventListener("click", () => this.answer(viewer, true), { signal: this.signal });
    const deny = document.createElement("button");
    deny.type = "button";
    deny.className = "deny";
    deny.textContent = "Refuse";
    deny.addEventListener("click", () => this.answer(viewer, false), { signal: this.signal });
    item.append(label, grant, deny);
    return item;
  }
}
