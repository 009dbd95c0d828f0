// Draws one frame on a HiDPI canvas exactly as the server described it: background image,
// parallax header layers, rows, pinned section headers, placeholder, lifted row, scroll
// indicator and info panel. Nothing here moves anything by itself.

const DEFAULT_VIEWPORT = { width: 390, height: 844 };
const MAX_RASTER_PX = 16000;   // keep pre-rendered images within GPU texture limits

const FONT = '"Liberation Sans", "DejaVu Sans", system-ui, -apple-system, "Segoe UI", sans-serif';

const COLORS = {
  base: "#f3c79b",
  cell: "rgba(255, 255, 255, 0.62)",
  cellLifted: "rgba(255, 255, 255, 0.94)",
  separator: "rgba(0, 0, 0, 0.14)",
  title: "#15171c",
  subtitle: "#4a505c",
  detail: "#3a3f4a",
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

/** A source image pre-rendered at the canvas's pixel scale, so SVGs are not re-rasterised per frame. */
class RasterImage {
  constructor(url, onReady) {
    this.url = url;
    this.image = new Image();
    this.image.decoding = "async";
    this.loaded = false;
    this.failed = false;
    this.raster = null;
    this.rasterKey = "";
    this.image.onload = () => { this.loaded = true; onReady(); };
    this.image.onerror = () => { this.failed = true; console.warn("scrollcast: could not load image", url); onReady(); };
    this.image.src = url;
  }

  /** A canvas holding the image at width×height pt times `scale` px/pt, or null until loaded. */
  at(width, height, scale) {
    if (!this.loaded) return null;
    const s = Math.min(scale, MAX_RASTER_PX / Math.max(width, height));
    const key = `${width}x${height}@${s}`;
    if (this.rasterKey !== key) {
      const canvas = document.createElement("canvas");
      canvas.width = Math.max(1, Math.round(width * s));
      canvas.height = Math.max(1, Math.round(height * s));
      canvas.getContext("2d").drawImage(this.image, 0, 0, canvas.width, canvas.height);
      this.raster = { canvas, pxPerPt: canvas.height / height };
      this.rasterKey = key;
    }
    return this.raster;
  }
}

/** Owns the canvas: its size, the scene's images, and drawing frames. */
export class Renderer {
  /** `onNeedsRedraw` is called when something outside a frame changed the picture (an image loaded). */
  constructor(canvas, { onNeedsRedraw = () => {} } = {}) {
    this.canvas = canvas;
    this.ctx = canvas.getContext("2d");
    this.onNeedsRedraw = onNeedsRedraw;
    this.scene = null;
    this.title = "";
    this.cssWidth = 0;
    this.cssHeight = 0;
    this.dpr = 1;
    this.background = null;
    this.layers = [];
    this.textCache = new Map();
  }

  /** Adopts a snapshot's scene: starts loading its images (once per URL). */
  setScene(scene, title) {
    const old = this.scene;
    this.scene = scene;
    this.title = title;
    const bgURL = scene.background?.image ?? null;
    if (!bgURL) this.background = null;
    else if (!this.background || this.background.url !== bgURL) this.background = new RasterImage(bgURL, this.onNeedsRedraw);
    const layers = scene.layers ?? [];
    this.layers = layers.map((layer, i) => {
      const existing = this.layers[i];
      if (existing && existing.url === layer.image && old) return existing;
      return new RasterImage(layer.image, this.onNeedsRedraw);
    });
  }

  /** Load status of the scene's images: "loading", "loaded" or "failed" each, and whether all settled. */
  imageStatus() {
    const status = (img) => (img ? (img.loaded ? "loaded" : img.failed ? "failed" : "loading") : "none");
    const background = status(this.background);
    const layers = this.layers.map(status);
    const ready = this.scene !== null && background !== "loading" && layers.every((s) => s !== "loading");
    return { ready, background, layers };
  }

  /** The room's logical viewport (pt). */
  viewport(frame) {
    return frame?.viewport ?? this.scene?.viewport ?? DEFAULT_VIEWPORT;
  }

  /** Sets the canvas's CSS size and device pixel ratio; returns true if the backing store changed. */
  resize(cssWidth, cssHeight, dpr) {
    const w = Math.max(1, Math.round(cssWidth * dpr));
    const h = Math.max(1, Math.round(cssHeight * dpr));
    this.cssWidth = cssWidth;
    this.cssHeight = cssHeight;
    this.dpr = dpr;
    if (this.canvas.width === w && this.canvas.height === h) return false;
    this.canvas.width = w;
    this.canvas.height = h;
    return true;
  }

  /** CSS px per pt and the offset that centres the viewport in the canvas. */
  fit(viewport) {
    const scale = Math.min(this.cssWidth / viewport.width, this.cssHeight / viewport.height) || 1;
    return {
      scale,
      left: (this.cssWidth - viewport.width * scale) / 2,
      top: (this.cssHeight - viewport.height * scale) / 2,
    };
  }

  /** Maps client (CSS) coordinates to the room's viewport pt: a scale and an offset only. */
  toLogical(clientX, clientY, frame) {
    const rect = this.canvas.getBoundingClientRect();
    const viewport = this.viewport(frame);
    const { scale, left, top } = this.fit(viewport);
    return { x: (clientX - rect.left - left) / scale, y: (clientY - rect.top - top) / scale };
  }

  /** Draws the placeholder picture shown before the first frame. */
  drawWaiting(message) {
    const { ctx } = this;
    const viewport = this.viewport(null);
    this.beginFrame(viewport);
    ctx.fillStyle = "#2a2f3a";
    ctx.fillRect(0, 0, viewport.width, viewport.height);
    ctx.fillStyle = "#e8eaef";
    ctx.font = `600 17px ${FONT}`;
    ctx.textAlign = "center";
    ctx.textBaseline = "middle";
    ctx.fillText(message, viewport.width / 2, viewport.height / 2);
    ctx.restore();
  }

  /** Draws one frame completely (no state carries over from the previous picture). */
  draw(frame) {
    const { ctx } = this;
    const viewport = this.viewport(frame);
    const insets = this.scene?.insets ?? { top: 0, left: 0, bottom: 0, right: 0 };
    const W = viewport.width;
    const H = viewport.height;
    this.beginFrame(viewport);
    ctx.beginPath();
    ctx.rect(0, 0, W, H);
    ctx.clip();

    this.drawBackground(frame, W, H);
    this.drawLayers(frame, W);

    const liftedRow = liftedRowOf(frame.lifted);
    const liftedId = liftedRow?.id;
    for (const row of frame.rows ?? []) {
      if (row.id !== undefined && row.id === liftedId) continue;
      this.drawRow(row, W, COLORS.cell);
    }
    if (frame.placeholder) this.drawPlaceholder(frame.placeholder, W);
    for (const header of frame.headers ?? []) this.drawSectionHeader(header, W);
    this.drawNavBar(W, insets.top);
    if (liftedRow) this.drawLifted(liftedRow, frame.lifted, W);
    if (frame.indicator) this.drawIndicator(frame.indicator);
    if (frame.panel) this.drawPanel(frame.panel, frame.indicator);
    ctx.restore();
  }

  beginFrame(viewport) {
    const { ctx } = this;
    const { scale, left, top } = this.fit(viewport);
    ctx.setTransform(1, 0, 0, 1, 0, 0);
    ctx.fillStyle = "#111318";
    ctx.fillRect(0, 0, this.canvas.width, this.canvas.height);
    ctx.save();
    ctx.setTransform(scale * this.dpr, 0, 0, scale * this.dpr, left * this.dpr, top * this.dpr);
    this.pxPerPt = scale * this.dpr;
  }

  drawBackground(frame, W, H) {
    const { ctx } = this;
    ctx.fillStyle = COLORS.base;
    ctx.fillRect(0, 0, W, H);
    const spec = this.scene?.background;
    if (!spec || !this.background) return;
    const raster = this.background.at(W, spec.height, this.pxPerPt);
    if (!raster) return;
    const y0 = -(frame.background?.offset ?? 0);
    // Copy only the visible slice of the long image.
    const top = Math.max(0, -y0);
    const bottom = Math.min(spec.height, H - y0);
    if (bottom <= top) return;
    const k = raster.pxPerPt;
    ctx.drawImage(raster.canvas, 0, top * k, raster.canvas.width, (bottom - top) * k, 0, y0 + top, W, bottom - top);
  }

  drawLayers(frame, W) {
    const { ctx } = this;
    const specs = this.scene?.layers ?? [];
    const headerHeight = this.scene?.headerHeight ?? 0;
    if (!specs.length || headerHeight <= 0) return;
    // The layers live behind the transparent table header: from the top of the screen down to
    // the header's bottom edge (content y = headerHeight, i.e. viewport y = headerHeight − offset).
    const headerBottom = headerHeight - (frame.offset ?? 0);
    if (headerBottom <= 0) return;
    ctx.save();
    ctx.beginPath();
    ctx.rect(0, 0, W, headerBottom);
    ctx.clip();
    for (const position of frame.layers ?? []) {
      const spec = specs[position.i];
      const image = this.layers[position.i];
      if (!spec || !image) continue;
      const width = spec.width ?? W;
      const raster = image.at(width, spec.height, this.pxPerPt);
      if (raster) ctx.drawImage(raster.canvas, 0, position.y, width, spec.height);
    }
    ctx.restore();
    // The seed's 1 pt dark border at the bottom of the table header.
    ctx.fillStyle = COLORS.headerBorder;
    ctx.fillRect(0, headerBottom - 1, W, 1);
  }

  drawRow(row, W, fill) {
    const { ctx } = this;
    const { y, h } = row;
    ctx.fillStyle = fill;
    ctx.fillRect(0, y, W, h);
    ctx.fillStyle = COLORS.separator;
    ctx.fillRect(16, y + h - 0.5, W - 16, 0.5);

    const detailFont = `13px ${FONT}`;
    const detail = row.detail ? this.fitText(row.detail, detailFont, 90) : "";
    ctx.font = detailFont;
    const detailWidth = detail ? ctx.measureText(detail).width + 10 : 0;
    const textWidth = W - 16 - 18 - detailWidth;

    const titleFont = `600 15px ${FONT}`;
    const subtitleFont = `12.5px ${FONT}`;
    const hasSubtitle = Boolean(row.subtitle) && h >= 40;
    const blockHeight = hasSubtitle ? 32 : 15;
    const top = y + (h - blockHeight) / 2;
    const titleBaseline = top + 12.5;

    ctx.textBaseline = "alphabetic";
    ctx.textAlign = "left";
    ctx.fillStyle = COLORS.title;
    ctx.font = titleFont;
    ctx.fillText(this.fitText(row.title ?? "", titleFont, textWidth), 16, titleBaseline);
    if (hasSubtitle) {
      ctx.fillStyle = COLORS.subtitle;
      ctx.font = subtitleFont;
      ctx.fillText(this.fitText(row.subtitle, subtitleFont, textWidth), 16, top + 29);
    }
    if (detail) {
      ctx.fillStyle = COLORS.detail;
      ctx.font = detailFont;
      ctx.textAlign = "right";
      ctx.fillText(detail, W - 18, titleBaseline);
      ctx.textAlign = "left";
    }
  }

  drawPlaceholder(placeholder, W) {
    const { ctx } = this;
    ctx.fillStyle = COLORS.placeholderFill;
    ctx.fillRect(0, placeholder.y, W, placeholder.h);
    ctx.save();
    ctx.strokeStyle = COLORS.placeholderStroke;
    ctx.lineWidth = 1.5;
    ctx.setLineDash([6, 4]);
    ctx.strokeRect(6, placeholder.y + 3, W - 12, Math.max(0, placeholder.h - 6));
    ctx.restore();
  }

  drawSectionHeader(header, W) {
    const { ctx } = this;
    ctx.fillStyle = COLORS.header;
    ctx.fillRect(0, header.y, W, header.h);
    ctx.fillStyle = COLORS.separator;
    ctx.fillRect(0, header.y + header.h - 0.5, W, 0.5);
    const font = `700 13px ${FONT}`;
    ctx.font = font;
    ctx.fillStyle = COLORS.headerText;
    ctx.textAlign = "left";
    ctx.textBaseline = "middle";
    ctx.fillText(this.fitText(header.title ?? "", font, W - 32), 16, header.y + header.h / 2 + 0.5);
    ctx.textBaseline = "alphabetic";
  }

  drawNavBar(W, height) {
    if (height <= 0) return;
    const { ctx } = this;
    ctx.fillStyle = COLORS.navBar;
    ctx.fillRect(0, 0, W, height);
    ctx.fillStyle = COLORS.separator;
    ctx.fillRect(0, height - 0.5, W, 0.5);
    const font = `600 16px ${FONT}`;
    ctx.font = font;
    ctx.fillStyle = COLORS.title;
    ctx.textAlign = "center";
    ctx.textBaseline = "middle";
    ctx.fillText(this.fitText(this.title, font, W - 40), W / 2, height / 2 + 1);
    ctx.textAlign = "left";
    ctx.textBaseline = "alphabetic";
  }

  drawLifted(row, lifted, W) {
    const { ctx } = this;
    const lift = clamp(Number(lifted.lift ?? 1), 0, 1);
    const scale = 1 + 0.04 * lift;
    ctx.save();
    ctx.translate(W / 2, row.y + row.h / 2);
    ctx.scale(scale, scale);
    ctx.translate(-W / 2, -(row.y + row.h / 2));
    ctx.shadowColor = `rgba(0, 0, 0, ${0.4 * lift})`;
    ctx.shadowBlur = 18 * lift * this.pxPerPt;
    ctx.shadowOffsetY = 6 * lift * this.pxPerPt;
    ctx.fillStyle = COLORS.cellLifted;
    ctx.fillRect(0, row.y, W, row.h);
    ctx.shadowColor = "transparent";
    this.drawRow(row, W, "rgba(0, 0, 0, 0)");
    ctx.restore();
  }

  drawIndicator(indicator) {
    const alpha = clamp(Number(indicator.alpha ?? 0), 0, 1);
    if (alpha <= 0) return;
    const { ctx } = this;
    ctx.save();
    ctx.globalAlpha = alpha;
    ctx.fillStyle = COLORS.indicator;
    roundedRect(ctx, indicator.x, indicator.y, indicator.w, indicator.h, Math.min(indicator.w, indicator.h) / 2);
    ctx.fill();
    ctx.restore();
  }

  drawPanel(panel, indicator) {
    const alpha = clamp(Number(panel.alpha ?? 0), 0, 1);
    if (alpha <= 0) return;
    const { ctx } = this;
    const { x, y, w, h } = panel;
    ctx.save();
    ctx.globalAlpha = alpha;
    ctx.fillStyle = COLORS.panel;
    roundedRect(ctx, x, y, w, h, Math.min(8, h / 2));
    ctx.fill();
    // A small notch pointing at the indicator, kept within the panel's height.
    if (indicator && indicator.x >= x + w) {
      const mid = clamp(indicator.y + indicator.h / 2, y + 6, y + h - 6);
      ctx.beginPath();
      ctx.moveTo(x + w, mid - 5);
      ctx.lineTo(x + w + 4, mid);
      ctx.lineTo(x + w, mid + 5);
      ctx.closePath();
      ctx.fill();
    }
    const pad = 10;
    const titleFont = `700 13px ${FONT}`;
    const detailFont = `12px ${FONT}`;
    ctx.textAlign = "left";
    ctx.textBaseline = "alphabetic";
    if (h >= 34 && panel.detail) {
      ctx.font = titleFont;
      ctx.fillStyle = COLORS.panelTitle;
      ctx.fillText(this.fitText(panel.title ?? "", titleFont, w - 2 * pad), x + pad, y + h / 2 - 2);
      ctx.font = detailFont;
      ctx.fillStyle = COLORS.panelDetail;
      ctx.fillText(this.fitText(panel.detail, detailFont, w - 2 * pad), x + pad, y + h / 2 + 13);
    } else {
      const text = [panel.title, panel.detail].filter(Boolean).join(" · ");
      ctx.font = titleFont;
      ctx.fillStyle = COLORS.panelTitle;
      ctx.textBaseline = "middle";
      ctx.fillText(this.fitText(text, titleFont, w - 2 * pad), x + pad, y + h / 2);
      ctx.textBaseline = "alphabetic";
    }
    ctx.restore();
  }

  /** `text` shortened with an ellipsis to fit `maxWidth` pt in `font` (cached: rows repeat every frame). */
  fitText(text, font, maxWidth) {
    const key = `${font}|${maxWidth}|${text}`;
    const cached = this.textCache.get(key);
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
    if (this.textCache.size > 4000) this.textCache.clear();
    this.textCache.set(key, result);
    return result;
  }
}

/** The lifted row's drawable row, whether the frame nests it (`lifted.row`) or inlines it. */
export function liftedRowOf(lifted) {
  if (!lifted) return null;
  const row = lifted.row ?? lifted;
  if (typeof row.y !== "number" || typeof row.h !== "number") return null;
  return row;
}

function roundedRect(ctx, x, y, w, h, r) {
  const radius = Math.max(0, Math.min(r, w / 2, h / 2));
  ctx.beginPath();
  ctx.moveTo(x + radius, y);
  ctx.arcTo(x + w, y, x + w, y + h, radius);
  ctx.arcTo(x + w, y + h, x, y + h, radius);
  ctx.arcTo(x, y + h, x, y, radius);
  ctx.arcTo(x, y, x + w, y, radius);
  ctx.closePath();
}

function clamp(v, lo, hi) {
  return Number.isFinite(v) ? Math.min(hi, Math.max(lo, v)) : lo;
}
