// The look every drawing module shares: the font stack and the named colours, plus the clamp
// they all use on numbers that come from frames.

export const FONT = '"Liberation Sans", "DejaVu Sans", system-ui, -apple-system, "Segoe UI", sans-serif';

export const COLORS = {
  base: "#f3c79b",
  cellLifted: "rgba(255, 255, 255, 0.94)",
  separator: "rgba(0, 0, 0, 0.14)",
  title: "#15171c",
  header: "rgba(244, 245, 248, 0.94)",
  headerText: "#2b2f38",
  navBar: "rgba(250, 250, 252, 0.9)",
  headerBorder: "rgba(0, 0, 0, 0.8)",
  indicator: "rgba(0, 0, 0, 0.5)",
  panel: "rgba(22, 24, 30, 0.8)",
  panelTitle: "#ffffff",
  panelDetail: "rgba(255, 255, 255, 0.82)",
  placeholderFill: "rgba(40, 60, 90, 0.10)",
  placeholderStroke: "rgba(40, 60, 90, 0.45)",
};

/** `v` within lo…hi; anything not finite (a missing or malformed field) counts as `lo`. */
export function clamp(v, lo, hi) {
  return Number.isFinite(v) ? Math.min(hi, Math.max(lo, v)) : lo;
}
