"""The SVG plot of the ladder in docs/benchmarks.svg: p99 input-to-frame and delivered frames per
second against viewers (bench/ladder.py measures, bench/ladder_report.py writes)."""


def svg_plot(steps, rooms):
    """p99 latency (left axis) and delivered frames/s (right axis) against viewers, in `rooms` rooms."""
    width, height = 640, 360
    left, right, top, bottom = 70, 80, 30, 50
    plot_w, plot_h = width - left - right, height - top - bottom
    xs = [s["viewers"] for s in steps]
    p99 = [(s["report"].get("latencyMs") or {}).get("p99", 0) for s in steps]
    fps = [s["report"]["framesPerSecond"] for s in steps]
    x_max = max(xs) or 1
    p_max = nice_ceiling(max(p99) or 1)
    f_max = nice_ceiling(max(fps) or 1)

    def x(v): return left + plot_w * v / x_max
    def y_p(v): return top + plot_h * (1 - v / p_max)
    def y_f(v): return top + plot_h * (1 - v / f_max)

    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" viewBox="0 0 {width} {height}" font-family="sans-serif" font-size="12">',
        f'<rect width="{width}" height="{height}" fill="white"/>',
        f'<text x="{width / 2}" y="18" text-anchor="middle" font-size="14">p99 input-to-frame latency and delivered frames/s ({rooms} rooms)</text>',
        f'<line x1="{left}" y1="{top + plot_h}" x2="{left + plot_w}" y2="{top + plot_h}" stroke="black"/>',
        f'<line x1="{left}" y1="{top}" x2="{left}" y2="{top + plot_h}" stroke="#c0392b"/>',
        f'<line x1="{left + plot_w}" y1="{top}" x2="{left + plot_w}" y2="{top + plot_h}" stroke="#2471a3"/>',
    ]
    for i in range(5):
        fraction = i / 4
        gy = top + plot_h * (1 - fraction)
        parts.append(f'<line x1="{left}" y1="{gy:.1f}" x2="{left + plot_w}" y2="{gy:.1f}" stroke="#eee"/>')
        parts.append(f'<text x="{left - 6}" y="{gy + 4:.1f}" text-anchor="end" fill="#c0392b">{p_max * fraction:g}</text>')
        parts.append(f'<text x="{left + plot_w + 6}" y="{gy + 4:.1f}" fill="#2471a3">{int(f_max * fraction)}</text>')
    for v in xs:
        parts.append(f'<text x="{x(v):.1f}" y="{top + plot_h + 16}" text-anchor="middle">{v}</text>')
    parts.append(f'<text x="{left + plot_w / 2}" y="{height - 10}" text-anchor="middle">viewers</text>')
    parts.append(f'<text x="16" y="{top + plot_h / 2}" fill="#c0392b" transform="rotate(-90 16 {top + plot_h / 2})" text-anchor="middle">p99 latency (ms)</text>')
    parts.append(f'<text x="{width - 14}" y="{top + plot_h / 2}" fill="#2471a3" transform="rotate(90 {width - 14} {top + plot_h / 2})" text-anchor="middle">frames/s delivered</text>')
    for values, scale, colour in ((p99, y_p, "#c0392b"), (fps, y_f, "#2471a3")):
        points = " ".join(f"{x(v):.1f},{scale(w):.1f}" for v, w in zip(xs, values))
        parts.append(f'<polyline points="{points}" fill="none" stroke="{colour}" stroke-width="2"/>')
        for v, w in zip(xs, values):
            parts.append(f'<circle cx="{x(v):.1f}" cy="{scale(w):.1f}" r="3.5" fill="{colour}"/>')
    parts.append("</svg>")
    return "\n".join(parts) + "\n"


def nice_ceiling(value):
    """The next 1, 2, 2.5 or 5 × 10^n at or above value, for round axis labels."""
    magnitude = 10 ** len(str(int(value))) / 10 if value >= 1 else 1
    for factor in (1, 2, 2.5, 5, 10):
        if value <= factor * magnitude:
            return factor * magnitude
    return 10 * magnitude
