"""The calibration curve as a small SVG: for each confidence bin of the answered records, the
mean confidence against the share that was right (the diagonal is perfect calibration), with
each bin's count. Plain SVG text, so it needs no plotting library.

    >>> "<svg" in curve_svg([(0.9, 0.88, 40)])
    True
"""

from __future__ import annotations

from collections.abc import Sequence

from nl2sql.eval.runner import QuestionRecord

_SIZE, _PAD = 320, 40


def bins(records: Sequence[QuestionRecord], width: float = 0.1) -> list[tuple[float, float, int]]:
    """(mean confidence, share right, count) per confidence bin of the answered records."""
    groups: dict[int, list[QuestionRecord]] = {}
    top = round(1 / width) - 1
    for r in records:
        if r.answered and r.confidence is not None:
            groups.setdefault(min(top, int(r.confidence / width)), []).append(r)
    return [(sum(r.confidence or 0.0 for r in g) / len(g), sum(r.correct for r in g) / len(g), len(g))
            for _, g in sorted(groups.items())]


def curve_svg(points: Sequence[tuple[float, float, int]], title: str = "calibration") -> str:
    """The reliability diagram of `points` (from `bins`) as SVG text."""
    def x(v: float) -> float:
        return _PAD + v * (_SIZE - 2 * _PAD)

    def y(v: float) -> float:
        return _SIZE - _PAD - v * (_SIZE - 2 * _PAD)

    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{_SIZE}" height="{_SIZE}" '
        'font-family="sans-serif" font-size="10">',
        f'<rect width="{_SIZE}" height="{_SIZE}" fill="white"/>',
        f'<text x="{_SIZE / 2}" y="16" text-anchor="middle" font-size="12">{title}</text>',
        f'<line x1="{x(0)}" y1="{y(0)}" x2="{x(1)}" y2="{y(1)}" stroke="#bbb" stroke-dasharray="4"/>',
        f'<line x1="{x(0)}" y1="{y(0)}" x2="{x(1)}" y2="{y(0)}" stroke="black"/>',
        f'<line x1="{x(0)}" y1="{y(0)}" x2="{x(0)}" y2="{y(1)}" stroke="black"/>',
        f'<text x="{_SIZE / 2}" y="{_SIZE - 8}" text-anchor="middle">confidence (held out)</text>',
        f'<text x="12" y="{_SIZE / 2}" text-anchor="middle" '
        f'transform="rotate(-90 12 {_SIZE / 2})">share right</text>',
    ]
    for tick in (0.0, 0.5, 1.0):
        parts.append(f'<text x="{x(tick)}" y="{y(0) + 12}" text-anchor="middle">{tick:.1f}</text>')
        parts.append(f'<text x="{x(0) - 4}" y="{y(tick) + 3}" text-anchor="end">{tick:.1f}</text>')
    path = " ".join(f"{x(c):.1f},{y(r):.1f}" for c, r, _ in points)
    parts.append(f'<polyline points="{path}" fill="none" stroke="#1565c0"/>')
    for c, r, n in points:
        radius = 2 + min(8.0, n ** 0.5)
        parts.append(f'<circle cx="{x(c):.1f}" cy="{y(r):.1f}" r="{radius:.1f}" fill="#1565c0" '
                     f'fill-opacity="0.5"/>')
        parts.append(f'<text x="{x(c) + 6:.1f}" y="{y(r) + 12:.1f}">{n}</text>')
    parts.append("</svg>")
    return "\n".join(parts) + "\n"
