// Runs cross-check scripts (from scrollcast-replica-check) on the WebAssembly engine through
// Public/js/replica/engine.js, exactly as the native side ran them (CrossCheckRun.swift), and
// compares every step's numbers. Evaluated in the page by wasm_crosscheck.py.
async ({scripts: text, sentAt, viewers}) => {
  const scripts = JSON.parse(text);
  const {loadEngine, Result} = await import("/js/replica/engine.js");
  const engine = window.__crosscheckEngine ??= await loadEngine();
  const fnv = (bytes) => {
    let h = 0x811c9dc5;
    for (let i = 0; i < bytes.length; i++) h = Math.imul(h ^ bytes[i], 0x01000193);
    return h >>> 0;
  };
  const raw = engine.exports;
  const fromHex = (text) => Uint8Array.from(text.match(/../g) ?? [], (h) => parseInt(h, 16));
  // The beat hash of the frame at `t`: 8 little-endian bytes, shown most significant first.
  const frameHash = (t) => {
    if (raw.scrollcast_frame_hash(t) !== 8) return null;
    const bytes = new Uint8Array(raw.memory.buffer, raw.scrollcast_output(), 8);
    return Array.from(bytes).reverse().map((b) => b.toString(16).padStart(2, "0")).join("");
  };
  const hex = (bytes) => Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
  let steps = 0, frames = 0, restored = 0;
  const started = performance.now();
  for (const script of scripts) {
    const got = [];
    // A random scene of its own (`--random-scenes`): made from its SceneBytes, as a page makes a
    // file or uploaded scene.
    let code = script.sceneBytes
      ? engine.createScene(script.scene, Uint8Array.from(script.sceneBytes.match(/../g), (h) => parseInt(h, 16)))
      : engine.create(script.scene);
    if (code !== 0) return {error: `create(${script.scene}) gave ${code}`, seed: script.seed};
    if (script.restore) {
      const order = engine.order();
      const flat = order.flat();
      for (const [i, j] of script.restore.swaps) [flat[i], flat[j]] = [flat[j], flat[i]];
      let at = 0;
      const swapped = order.map((section) => flat.slice(at, (at += section.length)));
      code = engine.restore(swapped, {width: script.restore.w, height: script.restore.h}, script.restore.offset);
      if (code !== 0) return {error: `restore gave ${code}`, seed: script.seed};
    }
    let sequence = 0, lastBytes = null;
    for (const [index, step] of script.steps.entries()) {
      if (step[0] === 0) {
        const [, kind, id, time, a, b, c, d, viewer] = step;
        const result = engine.apply({kind, a, b, c, d}, id, time, viewers[viewer]);
        if (result.code === Result.rowMoved) {
          got.push(result.code, result.moved.rowId, result.moved.to[0] * 100000 + result.moved.to[1]);
        } else {
          got.push(result.code, 0, 0);
        }
        lastBytes = null;
      } else {
        sequence += 1;
        frames += 1;
        const hash = frameHash(step[1]);
        if (hash !== script.hashes[sequence - 1]) {
          return {mismatch: true, seed: script.seed, step: index, frameIndex: sequence, got: [hash],
                  want: [script.hashes[sequence - 1]], bytes: null};
        }
        const frame = engine.frame(step[1], sequence, sentAt);
        got.push(fnv(frame.bytes), frame.bytes.length, frame.texts ? fnv(frame.texts) : 0);
        lastBytes = frame.bytes;
      }
      if (script.state && index === script.state.step) {
        // Through the state bytes, as an inputs-stream snapshot brings them; nothing after may change.
        const bytes = fromHex(script.state.hex);
        new Uint8Array(raw.memory.buffer, raw.scrollcast_input(bytes.length), bytes.length).set(bytes);
        code = raw.scrollcast_restore_state(bytes.length);
        if (code !== 0) return {error: `restore_state after step ${index} gave ${code}`, seed: script.seed};
        restored += 1;
      }
      steps += 1;
      const k = index * 3;
      if (got[k] !== script.expect[k] || got[k + 1] !== script.expect[k + 1] || got[k + 2] !== script.expect[k + 2]) {
        return {
          mismatch: true, seed: script.seed, step: index, frameIndex: step[0] === 1 ? sequence : null,
          got: got.slice(k, k + 3), want: script.expect.slice(k, k + 3), bytes: lastBytes ? hex(lastBytes) : null,
        };
      }
    }
  }
  return {steps, frames, restored, ms: performance.now() - started};
}
