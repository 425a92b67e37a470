#!/usr/bin/env python3
"""Pixel checks for Scripts/real-terminals.sh, on xwd screenshots (standard library only).
  check_screenshot.py picture SHOT.xwd X Y CW CH COLUMNS ROWS [PERCENT]
                                                 exit 0 when the cells from pixel X, Y hold a
                                                 picture rather than half blocks: at least
                                                 PERCENT (75) of them vary inside a half
  check_screenshot.py same A.xwd B.xwd [R B]     exit 0 when both hold the same pixels (but
                                                 R pixels on the right, B at the bottom)
  check_screenshot.py alike A.xwd B.xwd CW CH [R B]
                                                 exit 0 when no cell of CW x CH pixels differs
                                                 in more than 8 pixels: glyph edges that spill
                                                 over a cell's border (xterm's Xft) differ by a
                                                 few pixels between a frame drawn in pieces and
                                                 one drawn whole; a wrong character or a picture
                                                 left behind differs by dozens
  check_screenshot.py png SHOT.xwd OUT.png       writes the PNG"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from xwd2png import read_xwd, write_png  # noqa: E402


def main():
    mode = sys.argv[1]
    if mode == "picture":
        # Half blocks draw each cell as two flat halves; a picture at the terminal's resolution
        # varies inside them. A cell counts as a picture's when either half (a row kept clear of
        # its edges and of the middle) holds more than one colour and is not text (blank cells
        # and glyphs are one colour on another: at most two, and the background dominates).
        _, _, px = read_xwd(sys.argv[2])
        x, y, cw, ch, columns, rows = map(int, sys.argv[3:9])
        # A large picture of a small source has flat areas wider than a cell: only its edges
        # vary inside cells, which half blocks never do.
        percent = int(sys.argv[9]) if len(sys.argv) > 9 else 75
        varied = 0
        for row in range(rows):
            for column in range(columns):
                left, top = x + column * cw, y + row * ch
                halves = [range(top + 1, top + ch // 2 - 1), range(top + ch // 2 + 1, top + ch - 1)]
                for half in halves:
                    colours = {px[yy][xx] for yy in half for xx in range(left + 1, left + cw - 1)}
                    if len(colours) > 2:
                        varied += 1
                        break
        print("%d of %d cells vary inside their halves" % (varied, rows * columns))
        # Three in four by default: a monogram ("BA" in the middle two cells) is not a picture.
        sys.exit(0 if varied * 100 >= rows * columns * percent else 1)
    if mode == "same":
        a, b = read_xwd(sys.argv[2])[2], read_xwd(sys.argv[3])[2]
        # Optionally leave out a margin on the right and at the bottom (a scrollbar and a
        # counter that move when more data arrives between the two screenshots).
        right, bottom = (int(sys.argv[4]), int(sys.argv[5])) if len(sys.argv) > 5 else (0, 0)
        height, width = len(a) - bottom, len(a[0]) - right
        differ = sum(1 for ra, rb in zip(a[:height], b[:height]) for pa, pb in zip(ra[:width], rb[:width]) if pa != pb)
        print("%d pixels differ" % differ)
        sys.exit(0 if differ == 0 and len(a) == len(b) else 1)
    if mode == "alike":
        a, b = read_xwd(sys.argv[2])[2], read_xwd(sys.argv[3])[2]
        cw, ch = int(sys.argv[4]), int(sys.argv[5])
        right, bottom = (int(sys.argv[6]), int(sys.argv[7])) if len(sys.argv) > 7 else (0, 0)
        height, width = len(a) - bottom, len(a[0]) - right
        cells = {}
        for y, (ra, rb) in enumerate(zip(a[:height], b[:height])):
            for x, (pa, pb) in enumerate(zip(ra[:width], rb[:width])):
                if pa != pb:
                    cells[(x // cw, y // ch)] = cells.get((x // cw, y // ch), 0) + 1
        differ = sorted(cell for cell, count in cells.items() if count > 8)
        print("%d pixels differ; %d cells differ in more than 8%s" % (
            sum(cells.values()), len(differ), (": " + " ".join("%d,%d" % c for c in differ[:10])) if differ else ""))
        sys.exit(0 if not differ and len(a) == len(b) else 1)
    if mode == "png":
        write_png(sys.argv[3], read_xwd(sys.argv[2])[2])
        sys.exit(0)
    sys.exit(2)


if __name__ == "__main__":
    main()
