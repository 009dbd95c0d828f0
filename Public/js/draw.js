// Draws one frame on a HiDPI canvas exactly as the server described it: background image,
// parallax header layers, rows, pinned section headers, placeholder, lifted row, scroll
// indicator and info panel. Nothing here moves anything by itself.

const DEFAULT_VIEWPORT = { width: 390, height: 844 };
const MAX_RASTER_PX = 16000;   // keep pre-rendered images within GPU texture limits
const GROUND_SAMPLE_PT = 16;   // pulled-down layers extend the pixel row this far above their bottom
const FRONT_FADE_PT = 28;      // the front layer's extension fades out over this height

const FONT = '"Liberation Sans", "DejaVu Sans", system-ui, -apple-system, "Segoe UI", sans-serif';

const COLORS = {
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

/**
 * Row cells over the background: a light frosted cell with dark text over bright parts of the
 * image (dawn, day), a dark tinted cell with light text over dark parts (dusk, night). Over the
 * bands in between the cell blends from one to the other, and the text takes whichever of the
 * two palettes contrasts more with the cell as actually composited over the image.
 */
const CELL_LIGHT = { rgb: [255, 255, 255], alpha: 0.62 };
const CELL_DARK = { rgb: [12, 16, 34], alpha: 0.5 };
const TEXT_DARK = { title: "#15171c", subtitle: "#454b57", detail: "#353a45", separator: "rgba(0, 0, 0, 0.14)", luminance: 0.01 };
const TEXT_LIGHT = { title: "#f5f7fc", subtitle: "rgba(232, 236, 246, 0.82)", detail: "rgba(232, 236, 246, 0.9)", separator: "rgba(255, 255, 255, 0.16)", luminance: 0.92 };
/** Background luma (0…1) below which cells are fully dark, and above which fully light. */
const DARK_BELOW = 0.3;
const LIGHT_ABOVE = 0.42;
const PROFILE_STEP_PT = 4;       // one background brightness sample per 4 pt of image height
const BASE_RGB = [0xf3, 0xc7, 0x9b];

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
      this.drawRow(row, W, this.cellStyle(row.y + row.h / 2 + (frame.background?.offset ?? 0)));
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
    this.ensureBackgroundProfile(spec);
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
    const positions = frame.layers ?? [];
    const frontIndex = positions.reduce((m, p) => Math.max(m, p.i), -1);
    for (const position of positions) {
      const spec = specs[position.i];
      const image = this.layers[position.i];
      if (!spec || !image) continue;
      const width = spec.width ?? W;
      const raster = image.at(width, spec.height, this.pxPerPt);
      if (!raster) continue;
      ctx.drawImage(raster.canvas, 0, position.y, width, spec.height);
      // Pulled down, a layer's bottom edge rises above the header's (it follows only part of the
      // pull): extend a pixel row from just above its bottom so the ground reaches the header
      // instead of leaving a gap. The row comes from GROUND_SAMPLE_PT up, above the darker strip
      // a layer may shade its bottom edge with. The front layer (over others) fades out instead of
      // filling the gap, so the lighter ground behind it shows and the band is not a dark slab.
      const layerBottom = position.y + spec.height;
      if (layerBottom < headerBottom) {
        const k = raster.pxPerPt;
        const sampleY = Math.max(0, raster.canvas.height - Math.round(GROUND_SAMPLE_PT * k));
        const gap = headerBottom - layerBottom;
        const fades = position.i === frontIndex && position.i > 0;
        const height = fades ? Math.min(gap, FRONT_FADE_PT) : gap;
        if (fades) {
          ctx.drawImage(this.fadedGround(raster, sampleY, Math.max(1, Math.round(k))), 0, layerBottom - 0.5, width, height + 0.5);
        } else {
          ctx.drawImage(raster.canvas, 0, sampleY, raster.canvas.width, Math.max(1, Math.round(k)),
                        0, layerBottom - 0.5, width, gap + 0.5);
        }
      }
    }
    ctx.restore();
    // The seed's 1 pt dark border at the bottom of the table header.
    ctx.fillStyle = COLORS.headerBorder;
    ctx.fillRect(0, headerBottom - 1, W, 1);
  }

  /**
   * A layer's ground row stretched down and faded to transparent (a smooth alpha gradient), drawn
   * into a small reusable canvas that the caller scales into place.
   */
  fadedGround(raster, sampleY, rowHeight) {
    const canvas = (this.fadeCanvas ??= document.createElement("canvas"));
    const h = 64;
    if (canvas.width !== raster.canvas.width || canvas.height !== h) {
      canvas.width = raster.canvas.width;
      canvas.height = h;
    }
    const ctx = canvas.getContext("2d");
    ctx.globalCompositeOperation = "copy";
    ctx.drawImage(raster.canvas, 0, sampleY, raster.canvas.width, rowHeight, 0, 0, canvas.width, h);
    ctx.globalCompositeOperation = "destination-in";
    const gradient = ctx.createLinearGradient(0, 0, 0, h);
    gradient.addColorStop(0, "rgba(0, 0, 0, 1)");
    gradient.addColorStop(1, "rgba(0, 0, 0, 0)");
    ctx.fillStyle = gradient;
    ctx.fillRect(0, 0, canvas.width, h);
    ctx.globalCompositeOperation = "source-over";
    return canvas;
  }

  /**
   * Brightness of the background image along its height, sampled once per image: the image drawn
   * into a few pixels' width (so stars and labels average out) and read back, one sample per
   * PROFILE_STEP_PT. Drawing only: it decides cell colours, never positions.
   */
  ensureBackgroundProfile(spec) {
    const key = `${spec.image}@${spec.height}`;
    if (this.backgroundProfile?.key === key || !this.background?.loaded) return;
    const steps = Math.max(1, Math.min(4096, Math.ceil(spec.height / PROFILE_STEP_PT)));
    const canvas = document.createElement("canvas");
    canvas.width = 4;
    canvas.height = steps;
    const ctx = canvas.getContext("2d", { willReadFrequently: true });
    ctx.drawImage(this.background.image, 0, 0, canvas.width, steps);
    let data;
    try {
      data = ctx.getImageData(0, 0, canvas.width, steps).data;
    } catch {
      this.backgroundProfile = { key, rgb: null, step: spec.height / steps };   // tainted: use the base colour
      return;
    }
    const rgb = new Float32Array(steps * 3);
    for (let i = 0; i < steps; i += 1) {
      for (let c = 0; c < 3; c += 1) {
        let sum = 0;
        for (let x = 0; x < canvas.width; x += 1) sum += data[(i * canvas.width + x) * 4 + c];
        rgb[i * 3 + c] = sum / canvas.width;
      }
    }
    this.backgroundProfile = { key, rgb, step: spec.height / steps };
  }

  /** The background's colour (0…255 each) at image y, or the base colour outside the image. */
  backgroundColourAt(imageY) {
    const profile = this.backgroundProfile;
    if (!profile?.rgb || !this.scene?.background) return BASE_RGB;
    const i = Math.floor(imageY / profile.step);
    if (i < 0 || i * 3 >= profile.rgb.length) return BASE_RGB;
    return [profile.rgb[i * 3], profile.rgb[i * 3 + 1], profile.rgb[i * 3 + 2]];
  }

  /** Cell fill and text palette for a row whose centre lies over image y `imageY`. */
  cellStyle(imageY) {
    const bg = this.backgroundColourAt(imageY);
    const t = smoothstep(DARK_BELOW, LIGHT_ABOVE, luma(bg));
    const alpha = CELL_DARK.alpha + (CELL_LIGHT.alpha - CELL_DARK.alpha) * t;
    // Premultiplied blend of the two cell colours, then back to straight alpha for fillStyle.
    const rgb = [0, 1, 2].map((c) => (CELL_DARK.rgb[c] * CELL_DARK.alpha * (1 - t) + CELL_LIGHT.rgb[c] * CELL_LIGHT.alpha * t) / alpha);
    const composite = rgb.map((v, c) => v * alpha + bg[c] * (1 - alpha));
    const cell = relativeLuminance(composite);
    const text = contrast(cell, TEXT_DARK.luminance) >= contrast(cell, TEXT_LIGHT.luminance) ? TEXT_DARK : TEXT_LIGHT;
    this.lastCellStyle = { t, text: text === TEXT_DARK ? "dark" : "light" };
    return { fill: `rgba(${rgb.map(Math.round).join(", ")}, ${alpha.toFixed(3)})`, ...text };
  }

  drawRow(row, W, style) {
    const { ctx } = this;
    const { y, h } = row;
    ctx.fillStyle = style.fill;
    ctx.fillRect(0, y, W, h);
    ctx.fillStyle = style.separator;
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
    ctx.fillStyle = style.title;
    ctx.font = titleFont;
    ctx.fillText(this.fitText(row.title ?? "", titleFont, textWidth), 16, titleBaseline);
    if (hasSubtitle) {
      ctx.fillStyle = style.subtitle;
      ctx.font = subtitleFont;
      ctx.fillText(this.fitText(row.subtitle, subtitleFont, textWidth), 16, top + 29);
    }
    if (detail) {
      ctx.fillStyle = style.detail;
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
    this.drawRow(row, W, { ...TEXT_DARK, fill: "rgba(0, 0, 0, 0)" });
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

function clamp(v, lo, hi) {
  return Number.isFinite(v) ? Math.min(hi, Math.max(lo, v)) : lo;
}
