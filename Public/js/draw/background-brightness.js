const PROFILE_STEP_PT = 4;       // one background brightness sample per 4 pt of image height

/**
 * Brightness of the background image along its height, sampled once per image: the image drawn
 * into a few pixels' width (so stars and labels average out) and read back, one sample per
 * PROFILE_STEP_PT. Drawing only: it decides cell colours, never positions.
 */
export class BackgroundBrightness {
  /** Which background (`scene.background`) a profile was sampled from. */
  static keyOf(spec) {
    return `${spec.image}@${spec.height}`;
  }

  /** Samples the loaded `image` of background `spec`. */
  constructor(image, spec) {
    this.key = BackgroundBrightness.keyOf(spec);
    const steps = Math.max(1, Math.min(4096, Math.ceil(spec.height / PROFILE_STEP_PT)));
    this.step = spec.height / steps;
    this.rgb = null;
    const canvas = document.createElement("canvas");
    canvas.width = 4;
    canvas.height = steps;
    const ctx = canvas.getContext("2d", { willReadFrequently: true });
    ctx.drawImage(image, 0, 0, canvas.width, steps);
    let data;
    try {
      data = ctx.getImageData(0, 0, canvas.width, steps).data;
    } catch {
      return;   // tainted: no samples, callers use the base colour
    }
    const rgb = new Float32Array(steps * 3);
    for (let i = 0; i < steps; i += 1) {
      for (let c = 0; c < 3; c += 1) {
        let sum = 0;
        for (let x = 0; x < canvas.width; x += 1) sum += data[(i * canvas.width + x) * 4 + c];
        rgb[i * 3 + c] = sum / canvas.width;
      }
    }
    this.rgb = rgb;
  }

  /** The colour (0…255 each) at image y, or null outside the image or without samples. */
  colourAt(imageY) {
    if (!this.rgb) return null;
    const i = Math.floor(imageY / this.step);
    if (i < 0 || i * 3 >= this.rgb.length) return null;
    return [this.rgb[i * 3], this.rgb[i * 3 + 1], this.rgb[i * 3 + 2]];
  }
}
