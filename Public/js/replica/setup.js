// Whether this page runs the engine itself (docs/wasm.md, "The replica in the page"): by default
// yes; `?replica=off`, or a browser without WebAssembly, draws server frames exactly as before
// (the module is then never fetched). The engine loads while the page already connects and draws
// server frames, so it never delays the first picture.

import { PageReplica } from "./page-replica.js";

/** Why the page draws server frames only, or null when it runs the replica. */
export function replicaOffReason(search = window.location.search) {
  if (new URLSearchParams(search).get("replica") === "off") return "?replica=off";
  if (typeof WebAssembly !== "object" || typeof WebAssembly.instantiate !== "function") return "no WebAssembly";
  return null;
}

/** A PageReplica filling `stats`, its engine on its way; null when the page does without. */
export function createReplica(stats) {
  const off = replicaOffReason();
  if (off) {
    Object.assign(stats, { enabled: false, running: false, compared: 0, identical: 0, mismatches: 0, error: off });
    return null;
  }
  const replica = new PageReplica(stats);
  import("./engine.js")
    .then(({ loadEngine }) => loadEngine())
    .then((engine) => replica.attachEngine(engine))
    .catch((error) => {
      console.warn(`scrollcast: replica engine unavailable, drawing server frames: ${error}`);
      replica.disable(error);
    });
  return replica;
}
