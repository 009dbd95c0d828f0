// Row cells over the background: a light frosted cell with dark text over bright parts of the
// image (dawn, day), a dark tinted cell with light text over dark parts (dusk, night). Over the
// bands in between the cell blends from one to the other, and the text takes whichever of the
// two palettes contrasts more with the cell as actually composited over the image.

import { clamp } from "./style.js";

const CELL_LIGHT = { rgb: [255, 255, 255], alpha: 0.62 };
const CELL_DARK = { rgb: [12, 16, 34], alpha: 0.5 };
/** Dark text, also what the lifted row uses on its own light cell. */
export const TEXT_DARK = { title: "#15171c", subtitle: "#454b57", detail: "#353a45", separator: "rgba(0, 0, 0, 0.14)", luminance: 0.01 };
const TEXT_LIGHT = { title: "#f5f7fc", subtitle: "rgba(232, 236, 246, 0.82)", detail: "rgba(232, 236, 246, 0.9)", separator: "rgba(255, 255, 255, 0.16)", luminance: 0.92 };
/** Background luma (0…1) below which cells are fully dark, and above which fully light. */
const DARK_BELOW = 0.3;
const LIGHT_ABOVE = 0.42;

/**
 * The cell fill and text palette (`style`) for a row over background colour `bg` (0…255 each),
 * and how it chose (`choice`: the light share `t` and which text, "dark" or "light").
 */
export function cellStyleOver(bg) {
  const t = smoothstep(DARK_BELOW, LIGHT_ABOVE, luma(bg));
  const alpha = CELL_DARK.alpha + (CELL_LIGHT.alpha - CELL_DARK.alpha) * t;
  // Premultiplied blend of the two cell colours, then back to straight alpha for fillStyle.
  const rgb = [0, 1, 2].map((c) => (CELL_DARK.rgb[c] * CELL_DARK.alpha * (1 - t) + CELL_LIGHT.rgb[c] * CELL_LIGHT.alpha * t) / alpha);
  const composite = rgb.map((v, c) => v * alpha + bg[c] * (1 - alpha));
  const cell = relativeLuminance(composite);
  const text = contrast(cell, TEXT_DARK.luminance) >= contrast(cell, TEXT_LIGHT.luminance) ? TEXT_DARK : TEXT_LIGHT;
  return {
    style: { fill: `rgba(${rgb.map(Math.round).join(", ")}, ${alpha.toFixed(3)})`, ...text },
    choice: { t, text: text === TEXT_DARK ? "dark" : "light" },
  };
}

/** Rec. 709 luma of a gamma-encoded colour (0…255 each), 0…1: a cheap "how bright it looks". */
function luma([r, g, b]) {
  return (0.2126 * r + 0.7152 * g + 0.0722 * b) / 255;
}

/** WCAG relative luminance of a colour (0…255 each). */
function relativeLuminance(rgb) {
  const [r, g, b] = rgb.map((v) => {
    const c = clamp(v / 255, 0, 1);
    return c <= 0.04045 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
  });
  return 0.2126 * r + 0.7152 * g + 0.0722 * b;
}

/** WCAG contrast ratio of two relative luminances. */
function contrast(a, b) {
  return (Math.max(a, b) + 0.05) / (Math.min(a, b) + 0.05);
}

function smoothstep(edge0, edge1, x) {
  const t = clamp((x - edge0) / (edge1 - edge0), 0, 1);
  return t * t * (3 - 2 * t);
}
