// Runs the engine's own exp, log and pow in the page (the module's test-only exports,
// Wasm/MathExports.swift) on the arguments `scrollcast-replica-check --math` printed, and compares
// every result with the native one bit for bit (Object.is: −0 is not +0, NaN is NaN). The same
// comparison of the browser's own Math.exp/log/pow with the native results shows that it can fail.
// Evaluated in the page by wasm_crosscheck.py.
async ({lines}) => {
  const {loadEngine} = await import("/js/replica/engine.js");
  const raw = (await loadEngine()).exports;
  const number = (v) => (typeof v === "string" ? Number(v) : v);
  const results = {};
  for (const text of lines) {
    const {function: name, x, y, want} = JSON.parse(text);
    const wasm = raw[`scrollcast_math_${name}`], browser = Math[name];
    let mismatches = 0, browserDiffers = 0, first = null;
    for (let i = 0; i < x.length; i++) {
      const a = number(x[i]), b = y ? number(y[i]) : undefined, expected = number(want[i]);
      const got = y ? wasm(a, b) : wasm(a);
      if (!Object.is(got, expected)) {
        mismatches += 1;
        first ??= {x: x[i], y: y ? y[i] : null, wasm: String(got), native: String(expected)};
      }
      if (!Object.is(y ? browser(a, b) : browser(a), expected)) browserDiffers += 1;
    }
    results[name] = {checked: x.length, mismatches, first, browserDiffers};
  }
  return results;
}
