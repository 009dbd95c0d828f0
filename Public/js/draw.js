// Draws one frame on a HiDPI canvas exactly as the server described it: background image,
// parallax header layers, rows, pinned section headers, placeholder, lifted row, scroll
// indicator and info panel. Nothing here moves anything by itself.
//
// This module owns the canvas (its size, the fit of the room's viewport, the waiting picture)
// and the order in which the pieces are drawn; draw/ holds the pieces: backdrop.js (background
// and parallax layers), rows.js (rows, section headers, placeholder, lifted row), overlays.js
// (navigation bar, scroll indicator, info panel).

import { Backdrop } from "./draw/backdrop.js";
import { cellStyleOver } from "./draw/cell-palette.js";
import { drawIndicator, drawNavBar, drawPanel } from "./draw/overlays.js";
import { drawLifted, drawPlaceholder, drawRow, drawSectionHeader, liftedRowOf } from "./draw/rows.js";
import { FONT } from "./draw/style.js";
import { TextFitter } from "./draw/text-fitter.js";

export { liftedRowOf };

const DEFAULT_VIEWPORT = { width: 390, height: 844 };

/** Owns the canvas: its size, the scene's images, and drawing frames. */
export class Renderer {
  /** `onNeedsRedraw` is called when something outside a frame changed the picture (an image loaded). */
  constructor(canvas, { onNeedsRedraw = () => {} } = {}) {
    this.canvas = canvas;
    this.ctx = canvas.getContext("2d");
    this.scene = null;
    this.title = "";
    this.cssWidth = 0;
    this.cssHeight = 0;
    this.dpr = 1;
    this.backdrop = new Backdrop(onNeedsRedraw);
    this.text = new TextFitter(this.ctx);
  }

  /** Adopts a snapshot's scene: starts loading its images (once per URL). */
  setScene(scene, title) {
    this.scene = scene;
    this.title = title;
    this.backdrop.setScene(scene);
  }

  /** Load status of the scene's images: "loading", "loaded" or "failed" each, and whether all settled. */
  imageStatus() {
    return this.backdrop.imageStatus();
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
    const { ctx, text } = this;
    const viewport = this.viewport(frame);
    const insets = this.scene?.insets ?? { top: 0, left: 0, bottom: 0, right: 0 };
    const W = viewport.width;
    const H = viewport.height;
    this.beginFrame(viewport);
    ctx.beginPath();
    ctx.rect(0, 0, W, H);
    ctx.clip();

    this.backdrop.drawBackground(ctx, frame, W, H, this.pxPerPt);
    this.backdrop.drawLayers(ctx, frame, W, this.pxPerPt);

    const liftedRow = liftedRowOf(frame.lifted);
    const liftedId = liftedRow?.id;
    for (const row of frame.rows ?? []) {
      if (row.id !== undefined && row.id === liftedId) continue;
      drawRow(ctx, text, row, W, this.cellStyle(row.y + row.h / 2 + (frame.background?.offset ?? 0)));
    }
    if (frame.placeholder) drawPlaceholder(ctx, frame.placeholder, W);
    for (const header of frame.headers ?? []) drawSectionHeader(ctx, text, header, W);
    drawNavBar(ctx, text, W, insets.top, this.title);
    if (liftedRow) drawLifted(ctx, text, liftedRow, frame.lifted, W, this.pxPerPt);
    if (frame.indicator) drawIndicator(ctx, frame.indicator);
    if (frame.panel) drawPanel(ctx, text, frame.panel, frame.indicator);
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

  /** Cell fill and text palette for a row whose centre lies over image y `imageY`. */
  cellStyle(imageY) {
    const { style } = cellStyleOver(this.backdrop.colourAt(imageY));
    return style;
  }
}
