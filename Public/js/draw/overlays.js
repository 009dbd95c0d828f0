// What is drawn over the table's content: the navigation bar (under the lifted row only), the
// scroll indicator and the info panel beside it. Each function draws on `ctx` in the viewport's
// pt and shortens text with `text` (a TextFitter on the same context).

import { COLORS, FONT, clamp } from "./style.js";

/** The navigation bar across the top inset, with the title centred. */
export function drawNavBar(ctx, text, W, height, title) {
  if (height <= 0) return;
  ctx.fillStyle = COLORS.navBar;
  ctx.fillRect(0, 0, W, height);
  ctx.fillStyle = COLORS.separator;
  ctx.fillRect(0, height - 0.5, W, 0.5);
  const font = `600 16px ${FONT}`;
  ctx.font = font;
  ctx.fillStyle = COLORS.title;
  ctx.textAlign = "center";
  ctx.textBaseline = "middle";
  ctx.fillText(text.fit(title, font, W - 40), W / 2, height / 2 + 1);
  ctx.textAlign = "left";
  ctx.textBaseline = "alphabetic";
}

/** The scroll indicator: a pill, faded by its alpha. */
export function drawIndicator(ctx, indicator) {
  const alpha = clamp(Number(indicator.alpha ?? 0), 0, 1);
  if (alpha <= 0) return;
  ctx.save();
  ctx.globalAlpha = alpha;
  ctx.fillStyle = COLORS.indicator;
  roundedRect(ctx, indicator.x, indicator.y, indicator.w, indicator.h, Math.min(indicator.w, indicator.h) / 2);
  ctx.fill();
  ctx.restore();
}

/** The info panel, faded by its alpha: title over detail when tall enough, else one line. */
export function drawPanel(ctx, text, panel, indicator) {
  const alpha = clamp(Number(panel.alpha ?? 0), 0, 1);
  if (alpha <= 0) return;
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
    ctx.fillText(text.fit(panel.title ?? "", titleFont, w - 2 * pad), x + pad, y + h / 2 - 2);
    ctx.font = detailFont;
    ctx.fillStyle = COLORS.panelDetail;
    ctx.fillText(text.fit(panel.detail, detailFont, w - 2 * pad), x + pad, y + h / 2 + 13);
  } else {
    const line = [panel.title, panel.detail].filter(Boolean).join(" · ");
    ctx.font = titleFont;
    ctx.fillStyle = COLORS.panelTitle;
    ctx.textBaseline = "middle";
    ctx.fillText(text.fit(line, titleFont, w - 2 * pad), x + pad, y + h / 2);
    ctx.textBaseline = "alphabetic";
  }
  ctx.restore();
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
