"""Line charts as standalone SVG files, for the figures in docs/performance.md (issue 35).

No dependencies: the benchmarks write the charts in the same run that measured the figures. Each
chart has a <title> and <desc> naming every series and point, so a screen reader announces the
numbers the picture shows, and each series is told apart by its marker and dash as well as colour."""
import math
from xml.sax.saxutils import escape

# Colour, dash, marker per series, in order (distinguishable without colour too).
STYLES = [("#1f5fa8", "", "circle"), ("#b3541e", "6 4", "square"), ("#4d8a3a", "2 3", "diamond"),
          ("#7a4da8", "10 3 2 3", "triangle"), ("#5c5c5c", "1 4", "circle")]
WIDTH, HEIGHT = 700, 380
LEFT, RIGHT, TOP, BOTTOM = 78, 220, 46, 58


def _ticks(low, high, log):
    if log:
        return [10 ** e for e in range(math.floor(math.log10(low)), math.ceil(math.log10(high)) + 1)]
    step = 10 ** math.floor(math.log10(high / 4)) if high > 0 else 1
    for factor in (1, 2, 2.5, 5, 10):
        if high / (step * factor) <= 6: step *= factor; break
    return [i * step for i in range(0, int(high / step) + 2)]


def _label(value):
    if value < 1: return f"{value:g}"
    if value >= 1_000_000 and value % 1_000_000 == 0: return f"{value // 1_000_000:,.0f}M"
    if value >= 1000 and value % 1000 == 0: return f"{value // 1000:,.0f}k"
    return f"{value:g}"


def _marker(kind, x, y, colour):
    if kind == "square": return f'<rect x="{x - 4:.1f}" y="{y - 4:.1f}" width="8" height="8" fill="{colour}"/>'
    if kind == "diamond": return f'<path d="M{x:.1f} {y - 5:.1f}L{x + 5:.1f} {y:.1f}L{x:.1f} {y + 5:.1f}L{x - 5:.1f} {y:.1f}Z" fill="{colour}"/>'
    if kind == "triangle": return f'<path d="M{x:.1f} {y - 5:.1f}L{x + 5:.1f} {y + 4:.1f}L{x - 5:.1f} {y + 4:.1f}Z" fill="{colour}"/>'
    return f'<circle cx="{x:.1f}" cy="{y:.1f}" r="4" fill="{colour}"/>'


def line_chart(path, title, x_label, y_label, series, log_x=True, log_y=False, y_unit=""):
    """Writes `series` ({name: [(x, y), ...]}) as a line chart to `path`; x on a log scale by default,
    y linear from 0 (or on a log scale). Points with y None (not measured) are left out."""
    series = {name: [(x, y) for x, y in points if y is not None] for name, points in series.items()}
    xs = [x for points in series.values() for x, _ in points]
    ys = [y for points in series.values() for _, y in points]
    x_ticks = _ticks(min(xs), max(xs), log_x) if log_x else _ticks(0, max(xs), False)
    y_ticks = _ticks(min(ys), max(ys), True) if log_y else _ticks(0, max(ys) * 1.05, False)
    x_lo, x_hi = (math.log10(x_ticks[0]), math.log10(x_ticks[-1])) if log_x else (0, x_ticks[-1])
    y_lo, y_hi = (math.log10(y_ticks[0]), math.log10(y_ticks[-1])) if log_y else (0, y_ticks[-1])
    plot_w, plot_h = WIDTH - LEFT - RIGHT, HEIGHT - TOP - BOTTOM

    def px(x): return LEFT + ((math.log10(x) if log_x else x) - x_lo) / (x_hi - x_lo) * plot_w
    def py(y): return TOP + plot_h - ((math.log10(y) if log_y else y) - y_lo) / (y_hi - y_lo) * plot_h

    description = "; ".join(f"{name}: " + ", ".join(f"{_label(x)} → {y:.3g}{y_unit}" for x, y in points) for name, points in series.items())
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {WIDTH} {HEIGHT}" width="{WIDTH}" height="{HEIGHT}" role="img" aria-labelledby="t d" font-family="sans-serif" font-size="12">',
           f'<title id="t">{escape(title)}</title>', f'<desc id="d">{escape(f"{y_label} against {x_label}. {description}")}</desc>',
           f'<rect width="{WIDTH}" height="{HEIGHT}" fill="#fff"/>',
           f'<text x="{LEFT}" y="24" font-size="15" font-weight="bold" fill="#111">{escape(title)}</text>']
    for y in y_ticks:
        out.append(f'<line x1="{LEFT}" x2="{LEFT + plot_w}" y1="{py(y):.1f}" y2="{py(y):.1f}" stroke="#ddd"/>')
        out.append(f'<text x="{LEFT - 8}" y="{py(y) + 4:.1f}" text-anchor="end" fill="#333">{_label(y)}</text>')
    for x in x_ticks:
        out.append(f'<line x1="{px(x):.1f}" x2="{px(x):.1f}" y1="{TOP}" y2="{TOP + plot_h}" stroke="#eee"/>')
        out.append(f'<text x="{px(x):.1f}" y="{TOP + plot_h + 18}" text-anchor="middle" fill="#333">{_label(x)}</text>')
    out.append(f'<rect x="{LEFT}" y="{TOP}" width="{plot_w}" height="{plot_h}" fill="none" stroke="#888"/>')
    out.append(f'<text x="{LEFT + plot_w / 2:.1f}" y="{HEIGHT - 14}" text-anchor="middle" fill="#111">{escape(x_label)}</text>')
    out.append(f'<text transform="translate(18 {TOP + plot_h / 2:.1f}) rotate(-90)" text-anchor="middle" fill="#111">{escape(y_label)}</text>')
    for index, (name, points) in enumerate(series.items()):
        colour, dash, marker = STYLES[index % len(STYLES)]
        points = sorted(points)
        if len(points) > 1:
            line = " ".join(f"{px(x):.1f},{py(y):.1f}" for x, y in points)
            out.append(f'<polyline points="{line}" fill="none" stroke="{colour}" stroke-width="2"' + (f' stroke-dasharray="{dash}"' if dash else "") + "/>")
        out.extend(_marker(marker, px(x), py(y), colour) for x, y in points)
        legend_y = TOP + 10 + index * 22
        legend_x = LEFT + plot_w + 14
        out.append(f'<line x1="{legend_x}" x2="{legend_x + 26}" y1="{legend_y}" y2="{legend_y}" stroke="{colour}" stroke-width="2"' + (f' stroke-dasharray="{dash}"' if dash else "") + "/>")
        out.append(_marker(marker, legend_x + 13, legend_y, colour))
        out.append(f'<text x="{legend_x + 32}" y="{legend_y + 4}" fill="#111">{escape(name)}</text>')
    out.append("</svg>")
    with open(path, "w") as f: f.write("\n".join(out) + "\n")
