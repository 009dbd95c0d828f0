// Pings (docs/protocol.md, `ping`): the link's round trip, timed once the page has joined. The
// join's own round trip counts from the socket's making to the snapshot as the page read it, and
// a page still compiling its script reads it late (73-239 ms on a quiet loopback, seen), which
// made both clocks take a quiet local link for a slow one (docs/wasm.md, "The clock"). A few
// pings a while apart, and the quickest of them, do not depend on it: a pong is read late too
// while the page is busy (its engine loading; on a loaded machine, 80-98 ms on a loopback in all
// of four pings 250 ms apart), so they go further and further apart, the last 16 s after the join.

const PINGS = 6;
const FIRST_GAP_MS = 250;   // doubled after each ping: at 0.25, 0.75, 1.75, 3.75, 7.75 and 15.75 s

export class LinkPing {
  constructor() {
    this.sent = new Map();   // id → page time sent
    this.next = 1;
    this.timer = null;
    this.best = null;        // the quickest round trip of this socket's pings (ms), or null
  }

  /** A socket joined: ping it PINGS times, each gap twice the last, the first FIRST_GAP_MS after. */
  start(socket) {
    this.stop();
    let left = PINGS;
    let gap = FIRST_GAP_MS;
    const ping = () => {
      if (socket.readyState !== WebSocket.OPEN || left-- <= 0) return;
      const id = this.next++;
      this.sent.set(id, performance.now());
      socket.send(JSON.stringify({ type: "ping", id }));
      gap *= 2;
      this.timer = setTimeout(ping, gap);
    };
    this.timer = setTimeout(ping, gap);
  }

  /** The socket is gone: no more pings, and the ones in flight are never answered on it. */
  stop() {
    clearTimeout(this.timer);
    this.sent.clear();
    this.best = null;
  }

  /** The `pong` for ping `id` came at page time `at`: the quickest round trip so far. */
  pong(id, at) {
    const sent = this.sent.get(id);
    if (sent === undefined) return this.best;
    this.sent.delete(id);
    this.best = Math.min(this.best ?? Infinity, at - sent);
    return this.best;
  }
}
