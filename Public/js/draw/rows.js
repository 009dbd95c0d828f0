// The table's content: row cells with their text, the placeholder a lifted row leaves, the
// pinned section headers, and the lifted row itself. Each function draws on `ctx` in the
// viewport's pt and shortens text with `text` (a TextFitter on the same context).

import { TEXT_DARK } from "./cell-palette.js";
import { COLORS, FONT, clamp } from "./style.js";

/** One row's cell in `style` (fill, separator and text colours): title, subtitle, detail. */
export function drawRow(ctx, text, row, W, style) {
  const { y, h } = row;
  ctx.fillStyle = style.fill;
  ctx.fillRect(0, y, W, h);
  ctx.fillStyle = style.separator;
  ctx.fillRect(16, y + h - 0.5, W - 16, 0.5);

  const detailFont = `13px ${FONT}`;
  const detail = row.detail ? text.fit(row.detail, detailFont, 90) : "";
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
  ctx.fillText(text.fit(row.title ?? "", titleFont, textWidth), 16, titleBaseline);
  if (hasSubtitle) {
    ctx.fillStyle = style.subtitle;
    ctx.font = subtitleFont;
    ctx.fillText(text.fit(row.subtitle, subtitleFont, textWidth), 16, top + 29);
  }
  if (detail) {
    ctx.fillStyle = style.detail;
    ctx.font = detailFont;
    ctx.textAlign = "right";
    ctx.fillText(detail, W - 18, titleBaseline);
    ctx.textAlign = "left";
  }
}

/** The dashed gap where a lifted row would drop. */
export function drawPlaceholder(ctx, placeholder, W) {
  ctx.fillStyle = COLORS.placeholderFill;
  ctx.fillRect(0, placeholder.y, W, placeholder.h);
  ctx.save();
  ctx.strokeStyle = COLORS.placeholderStroke;
  ctx.lineWidth = 1.5;
  ctx.setLineDash([6, 4]);
  ctx.strokeRect(6, placeholder.y + 3, W - 12, Math.max(0, placeholder.h - 6));
  ctx.restore();
}

/** A section header bar with its title. */
export function drawSectionHeader(ctx, text, header, W) {
  ctx.fillStyle = COLORS.header;
  ctx.fillRect(0, header.y, W, header.h);
  ctx.fillStyle = COLORS.separator;
  ctx.fillRect(0, header.y + header.h - 0.5, W, 0.5);
  const font = `700 13px ${FONT}`;
  ctx.font = font;
  ctx.fillStyle = COLORS.headerText;
  ctx.textAlign = "left";
  ctx.textBaseline = "middle";
  ctx.fillText(text.fit(header.title ?? "", font, W - 32), 16, header.y + header.h / 2 + 0.5);
  ctx.textBaseline = "alphabetic";
}

/** The lifted row, scaled up and shadowed by how far it is lifted (`pxPerPt` sizes the shadow). */
export function drawLifted(ctx, text, row, lifted, W, pxPerPt) {
  const lift = clamp(Number(lifted.lift ?? 1), 0, 1);
  const scale = 1 + 0.04 * lift;
  ctx.save();
  ctx.translate(W / 2, row.y + row.h / 2);
  ctx.scale(scale, scale);
  ctx.translate(-W / 2, -(row.y + row.h / 2));
  ctx.shadowColor = `rgba(0, 0, 0, ${0.4 * lift})`;
  ctx.shadowBlur = 18 * lift * pxPerPt;
  ctx.shadowOffsetY = 6 * lift * pxPerPt;
  ctx.fillStyle = COLORS.cellLifted;
  ctx.fillRect(0, row.y, W, row.h);
  ctx.shadowColor = "transparent";
  drawRow(ctx, text, row, W, { ...TEXT_DARK, fill: "rgba(0, 0, 0, 0)" });
  ctx.restore();
}

/** The lifted row's drawable row, whether the frame nests it (`lifted.row`) or inlines it. */
export function liftedRowOf(lifted) {
  if (!lifted) return null;
  const row = lifted.row ?? lifted;
  if (typeof row.y !== "number" || typeof row.h !== "number") return null;
  return row;
}
