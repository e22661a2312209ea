"""zizou's mascot as pixel art: a footballer in a blue shirt with a white band and a red stripe,
white shorts, blue socks and dark boots, with a football, beside a block-letter ZIZOU in blue
with a red drop shadow. Two pixels stack in each cell through the half-block characters."""

from __future__ import annotations

from rich.style import Style
from rich.text import Text

PALETTE = {
    "h": "#2b1d14",  # hair
    "s": "#d9a066",  # skin
    "B": "#2146b0",  # shirt blue
    "W": "#f4f4f4",  # the shirt's white band
    "R": "#e1262d",  # the red stripe
    "w": "#e9e9e9",  # shorts
    "b": "#1a3590",  # socks
    "k": "#1c1c1c",  # boots
    "o": "#fafafa",  # ball
    "x": "#303030",  # ball patches
}
WORD_BLUE = "#2f62e0"
SHADOW_RED = "#d3212c"

PLAYER = (
    ".....hhhh.......",
    "....hhhhhh......",
    "....ssssss......",
    "....ssssss......",
    ".....ssss.......",
    "...BBBBBBBB.....",
    "..BBBBBBBBBB....",
    ".sBWWWWWWWWBs...",
    ".sBRRRRRRRRBs...",
    ".sBBBBBBBBBBs...",
    ".s.BBBBBBBB.s...",
    "...wwwwwwww.....",
    "...www..www.....",
    "...sss...sss....",
    "...bbb....bbb...",
    "...bbb.....bbboo",
    "..kkkk.....kkoxx",
    "..............oo",
)

FONT = {
    "Z": ("#####", "...#.", "..#..", ".#...", "#####"),
    "I": ("#####", "..#..", "..#..", "..#..", "#####"),
    "O": (".###.", "#...#", "#...#", "#...#", ".###."),
    "U": ("#...#", "#...#", "#...#", "#...#", ".###."),
}
SCALE = 2  # each font pixel is 2x2 canvas pixels
GAP = 4  # canvas columns between the player and the word
WORD_TOP = 3  # canvas row where the letters start

Canvas = list[list[str | None]]


def _blank(width: int, height: int) -> Canvas:
    return [[None] * width for _ in range(height)]


def _word_pixels(word: str) -> set[tuple[int, int]]:
    pixels: set[tuple[int, int]] = set()
    x0 = 0
    for letter in word:
        for y, row in enumerate(FONT[letter]):
            for x, cell in enumerate(row):
                if cell == "#":
                    for dy in range(SCALE):
                        for dx in range(SCALE):
                            pixels.add((x0 + x * SCALE + dx, y * SCALE + dy))
        x0 += (len(FONT[letter][0]) + 1) * SCALE
    return pixels


def full_canvas() -> Canvas:
    word = _word_pixels("ZIZOU")
    word_width = max(x for x, _ in word) + 2
    left = len(PLAYER[0]) + GAP
    canvas = _blank(left + word_width, len(PLAYER))
    for y, row in enumerate(PLAYER):
        for x, key in enumerate(row):
            if key != ".":
                canvas[y][x] = PALETTE[key]
    for x, y in word:  # the shadow first, one pixel right and down; the letters over it
        canvas[WORD_TOP + y + 1][left + x + 1] = SHADOW_RED
    for x, y in word:
        canvas[WORD_TOP + y][left + x] = WORD_BLUE
    return canvas


def render_canvas(canvas: Canvas) -> list[Text]:
    """One Text line per two pixel rows: ▀ with the top colour over the bottom one."""
    lines: list[Text] = []
    for top_row in range(0, len(canvas), 2):
        top = canvas[top_row]
        bottom = canvas[top_row + 1] if top_row + 1 < len(canvas) else [None] * len(top)
        line = Text()
        for upper, lower in zip(top, bottom, strict=True):
            line.append(*_cell(upper, lower))
        lines.append(line)
    return lines


def _cell(upper: str | None, lower: str | None) -> tuple[str, Style | None]:
    if upper is None and lower is None:
        return " ", None
    if upper == lower:
        return "█", Style(color=upper)
    if lower is None:
        return "▀", Style(color=upper)
    if upper is None:
        return "▄", Style(color=lower)
    return "▀", Style(color=upper, bgcolor=lower)


def full_art(tagline: str) -> Text:
    """The mascot and the wordmark, with `tagline` under the word."""
    lines = render_canvas(full_canvas())
    left = len(PLAYER[0]) + GAP
    last = lines[-1]
    lines[-1] = last[:left] + Text(tagline, style="dim")
    return Text("\n").join(lines)


def compact_art(tagline: str) -> Text:
    """One line: a tiny player and ball, the word, and the tagline."""
    text = Text()
    text.append("▀", Style(color=PALETTE["s"], bgcolor=PALETTE["B"]))
    text.append("▄", Style(color=PALETTE["o"]))
    text.append(" ZIZOU", Style(color=WORD_BLUE, bold=True))
    text.append("▝", Style(color=SHADOW_RED))
    text.append(f" {tagline}", style="dim")
    return text


FULL_WIDTH = len(PLAYER[0]) + GAP + 60
FULL_HEIGHT = (len(PLAYER) + 1) // 2

__all__ = ["FULL_HEIGHT", "FULL_WIDTH", "compact_art", "full_art", "render_canvas"]
