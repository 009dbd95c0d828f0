/** Shortens text with an ellipsis to fit a width, measured on one canvas context. */
export class TextFitter {
  constructor(ctx) {
    this.ctx = ctx;
    this.cache = new Map();
  }

  /**
   * `text` shortened with an ellipsis to fit `maxWidth` pt in `font` (cached: rows repeat every
   * frame). Measuring leaves `font` set on the context.
   */
  fit(text, font, maxWidth) {
    const key = `${font}|${maxWidth}|${text}`;
    const cached = this.cache.get(key);
    if (cached !== undefined) return cached;
    const { ctx } = this;
    ctx.font = font;
    let result = text;
    if (maxWidth <= 0) result = "";
    else if (ctx.measureText(text).width > maxWidth) {
      let lo = 0;
      let hi = text.length;
      while (lo < hi) {
        const mid = Math.ceil((lo + hi) / 2);
        if (ctx.measureText(text.slice(0, mid) + "…").width <= maxWidth) lo = mid;
        else hi = mid - 1;
      }
      result = lo > 0 ? text.slice(0, lo).trimEnd() + "…" : "";
    }
    if (this.cache.size > 4000) this.cache.clear();
    this.cache.set(key, result);
    return result;
  }
}
