// One quantile definition for every figure the page shows, so tests can recompute them exactly.

/** The q-quantile (0…1) of `values` by nearest rank (the ceil(q·n)-th smallest), or null if empty. */
export function nearestRank(values, q) {
  if (!values.length) return null;
  const sorted = Float64Array.from(values).sort();
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1));
  return sorted[rank];
}

/** The median of `values`, as nearestRank(values, 0.5), or null if empty. */
export function median(values) {
  return nearestRank(values, 0.5);
}
