const MAX_RASTER_PX = 16000;   // keep pre-rendered images within GPU texture limits

/** A source image pre-rendered at the canvas's pixel scale, so SVGs are not re-rasterised per frame. */
export class RasterImage {
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
    // The versioned name index.html gives a file it lists (kept by the browser until it changes).
    this.image.src = globalThis.scrollcastEarly?.assetURL?.(url) ?? url;
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
