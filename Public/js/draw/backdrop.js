// What lies behind the table: the long background image, scrolled by the frame's background
// offset, and the parallax header layers behind the transparent table header.

import { BackgroundBrightness } from "./background-brightness.js";
import { RasterImage } from "./raster-image.js";
import { COLORS } from "./style.js";

/** What stands in for an image not decoded yet (or not at all): its size, never its absence. */
const IMAGE_PLACEHOLDER = "rgba(128, 128, 128, 0.35)";

const GROUND_SAMPLE_PT = 16;   // pulled-down layers extend the pixel row this far above their bottom
const FRONT_FADE_PT = 28;      // the front layer's extension fades out over this height
const BASE_RGB = [0xf3, 0xc7, 0x9b];   // COLORS.base, where there is no background image

/** The scene's background and header layer images, and drawing them for a frame. */
export class Backdrop {
  /** `onNeedsRedraw` is called when an image finished loading (or failed to). */
  constructor(onNeedsRedraw) {
    this.onNeedsRedraw = onNeedsRedraw;
    this.scene = null;
    this.background = null;
    this.layers = [];
    this.brightness = null;
    this.fadeCanvas = null;
  }

  /** Adopts a scene: starts loading its images (once per URL). */
  setScene(scene) {
    const old = this.scene;
    this.scene = scene;
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

  /** The base colour, then the visible slice of the background image at the frame's offset. */
  drawBackground(ctx, frame, W, H, pxPerPt) {
    ctx.fillStyle = COLORS.base;
    ctx.fillRect(0, 0, W, H);
    const spec = this.scene?.background;
    if (!spec || !this.background) return;
    const raster = this.background.at(W, spec.height, pxPerPt);
    if (!raster) {
      // Not decoded (yet, or ever): a placeholder where the image goes, at its size.
      const y = -(frame.background?.offset ?? 0);
      ctx.fillStyle = IMAGE_PLACEHOLDER;
      ctx.fillRect(0, Math.max(0, y), W, Math.min(H, y + spec.height) - Math.max(0, y));
      return;
    }
    if (this.brightness?.key !== BackgroundBrightness.keyOf(spec) && this.background.loaded) {
      this.brightness = new BackgroundBrightness(this.background.image, spec);
    }
    const y0 = -(frame.background?.offset ?? 0);
    // Copy only the visible slice of the long image.
    const top = Math.max(0, -y0);
    const bottom = Math.min(spec.height, H - y0);
    if (bottom <= top) return;
    const k = raster.pxPerPt;
    ctx.drawImage(raster.canvas, 0, top * k, raster.canvas.width, (bottom - top) * k, 0, y0 + top, W, bottom - top);
  }

  /** The header layers at the frame's positions, clipped to the table header, and its bottom border. */
  drawLayers(ctx, frame, W, pxPerPt) {
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
      const raster = image.at(width, spec.height, pxPerPt);
      if (!raster) {
        // Not decoded (yet, or ever): a placeholder of the layer's size where it goes.
        ctx.fillStyle = IMAGE_PLACEHOLDER;
        ctx.fillRect(0, position.y, width, spec.height);
        continue;
      }
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

  /** The background's colour (0…255 each) at image y, or the base colour outside the image. */
  colourAt(imageY) {
    if (!this.scene?.background) return BASE_RGB;
    return this.brightness?.colourAt(imageY) ?? BASE_RGB;
  }
}
