// Scenes the engine's module has not built in: file and uploaded scenes (docs/wasm.md, "Any
// scene"). Their `SceneBytes`, as `GET /scenes/NAME` serves them, kept by name for every engine
// of the page (the replica's, the confirmed engine's, the watcher's), which create them by name
// as they create a built-in one (engine.js). A name stands for one scene while the server runs,
// so each is fetched once.

const known = new Map();     // name → Uint8Array
const pending = new Map();   // name → Promise, while its bytes are on their way

/** The bytes of the scene called `name`, or undefined when none were fetched. */
export function sceneBytesOf(name) { return known.get(name); }

/** Whether the bytes of the scene called `name` are here. */
export function knowsScene(name) { return known.has(name); }

/**
 * Fetches the bytes of the scene called `name` (relative to the page, as its images are);
 * resolves once they are here, rejects with why when the server has none.
 */
export function fetchScene(name) {
  if (known.has(name)) return Promise.resolve();
  if (!pending.has(name)) {
    const request = fetch(`scenes/${encodeURIComponent(name)}`)
      .then((reply) => {
        if (!reply.ok) throw new Error(`GET /scenes/${name} answered ${reply.status}`);
        return reply.arrayBuffer();
      })
      .then((buffer) => { known.set(name, new Uint8Array(buffer)); })
      .finally(() => pending.delete(name));
    pending.set(name, request);
  }
  return pending.get(name);
}
