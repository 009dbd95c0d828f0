// Checking a server frame against the replica (docs/wasm.md, "Checking"): the replica's engine,
// holding the room's confirmed state, makes the frame the server sent and compares.

/** Whether a frame shows the room at rest: a replica can start from it (docs/protocol.md). */
export function atRest(frame) {
  return frame.animating === false && frame.phase === "idle" && !frame.lifted && !frame.placeholder;
}

const MISMATCHES_KEPT = 10;
const hex = (bytes) => Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join(" ");

/**
 * Compares server `frame` (decoded; `frame.wire` its version-2 bytes, if any) with `engine`'s
 * frame at the same room time: byte for byte in version 2, by the decoded frame in version 1.
 * Counts into `telemetry` (compared, identical, mismatches, mismatchLog: telemetry.js) and returns "identical" or
 * "mismatch". `decoder` decodes the engine's own frames (version 1).
 */
export function compareFrame(engine, decoder, telemetry, frame) {
  telemetry.compared += 1;
  let mine, theirs;
  if (frame.wire) {
    mine = engine.serverFrame(frame.t, frame.seq, frame.sentAt);
    theirs = frame.wire;
    if (mine.length === theirs.length && mine.every((b, i) => b === theirs[i])) {
      telemetry.identical += 1;
      return "identical";
    }
    mine = hex(mine);
    theirs = hex(theirs);
  } else {
    const result = engine.frame(frame.t, frame.seq, frame.sentAt);
    if (result.texts) decoder.decode(result.texts.slice().buffer);
    mine = JSON.stringify(decoder.decode(result.bytes.slice().buffer));
    theirs = JSON.stringify(frame);
    if (mine === theirs) {
      telemetry.identical += 1;
      return "identical";
    }
  }
  telemetry.mismatches += 1;
  telemetry.lastMismatch = { seq: frame.seq, replica: mine, server: theirs };
  telemetry.mismatchLog.push(telemetry.lastMismatch);
  if (telemetry.mismatchLog.length > MISMATCHES_KEPT) telemetry.mismatchLog.shift();
  console.warn(`scrollcast replica: frame ${frame.seq} differs from the server's; drawing server frames until the room rests`);
  return "mismatch";
}
