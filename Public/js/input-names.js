// The protocol's names for an input's choices (docs/protocol.md, "Inputs"), each list in the
// order version 2 numbers them ("Binary frames": `u8` 0, 1, 2…) and the engine's boundary takes
// them: the page's input, its version-2 decoder and its replica share these one tables, so the
// three cannot come to number a choice differently.

/** Wheel delta modes, in `WheelEvent.deltaMode` order (DOM_DELTA_PIXEL 0, LINE 1, PAGE 2). */
export const WHEEL_MODES = Object.freeze(["pixel", "line", "page"]);

/** Scroll keys (`key` inputs). */
export const KEYS = Object.freeze(["arrowUp", "arrowDown", "pageUp", "pageDown", "space", "shiftSpace", "home", "end"]);

/** Where `scrollToRow` puts its row. */
export const POSITIONS = Object.freeze(["none", "top", "middle", "bottom"]);

/** The protocol name of a WheelEvent.deltaMode (pixels for a mode the DOM may add later). */
export function wheelMode(deltaMode) {
  return WHEEL_MODES[deltaMode] ?? "pixel";
}
