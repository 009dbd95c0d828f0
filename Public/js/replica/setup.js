// Whether this page runs the engine itself (docs/wasm.md, "The replica in the page"): by default
// yes; `?replica=off`, or a browser without WebAssembly, draws server frames exactly as before
// (the module is then never fetched). The engine loads while the page already connects and draws
// server frames, so it never delays the first picture. Three instances: the replica, the
// confirmed engine that judges its pictures (docs/measures.md), and the watcher's (watcher.js). After a trap the page makes fresh
// instances from the compiled module (at most ENGINE_RESTARTS times); after a load failure, or
// past that, the page stops asking for `applied` (docs/wasm.md, "When the replica cannot run").

import { PageReplica } from "./page-replica.js";
import { ConfirmedEngine } from "./confirmed-engine.js";
import { Watcher } from "./watcher.js";
import { testHooks } from "./test-hooks.js";

// Re-exported as a list: the page bundle (scripts/bundle-page.py) takes no `export … from`.
export { testHooks };

/** Traps after which the page makes the engine again; past that it stays on server frames. */
export const ENGINE_RESTARTS = 3;

/** Why the page draws server frames only, or null when it runs the replica. */
export function replicaOffReason(search = window.location.search) {
  if (new URLSearchParams(search).get("replica") === "off") return "?replica=off";
  if (typeof WebAssembly !== "object" || typeof WebAssembly.instantiate !== "function") return "no WebAssembly";
  return null;
}

/**
 * A PageReplica, its engine on its way; null when the page does without (`replicaOffReason`).
 * `measures` (PageMeasures) receives the room's offset for each judged picture; `asking(on)` says
 * whether the page should ask for `applied` messages (false once the replica cannot run).
 * Nothing happens once the replica is stopped: an engine that arrives later is not attached.
 */
export function createReplica({ measures, asking }) {
  if (replicaOffReason()) return null;
  const replica = new PageReplica();
  let instantiate = null;
  let restarts = 0;   // control state: how many fresh engines this page made (the telemetry only tells it)
  // The page's onStart (page.js) schedules a display frame: the watcher's wake-up does the same.
  const attach = ([engine, judge, watch]) => replica.attachEngine(engine,
    new ConfirmedEngine(judge, (n, offset) => measures.confirm(n, offset)), new Watcher(watch, () => replica.onStart?.()));
  replica.onDisable = (reason) => {
    console.warn(`scrollcast replica: stopped (${reason}); drawing server frames`);
    // A load failure, or traps past the limit: the replica will not run again on this page.
    if (!instantiate || restarts >= ENGINE_RESTARTS) return asking(false);
    // A trap: the module is fine, this instance's memory is not. Fresh instances start again at
    // the next rest; meanwhile the page draws server frames and keeps no `applied` message.
    restarts += 1;
    replica.telemetry.engineRestarts = restarts;
    Promise.all([instantiate(), instantiate(), instantiate()])
      .then(attach)
      .catch((error) => { console.warn(`scrollcast: could not make the engine again: ${error}`); asking(false); });
  };
  // Resolves true once the engines are attached, false when they could not load (the inputs stream waits for it).
  replica.ready = import("./engine.js")
    .then(({ loadEngines }) => loadEngines(3))
    .then((engines) => { instantiate = engines.instantiate; replica.instantiate = instantiate; attach(engines); return true; })
    .catch((error) => {
      console.warn(`scrollcast: replica engine unavailable, drawing server frames: ${error}`);
      replica.disable(error);
      return false;
    });
  return replica;
}
