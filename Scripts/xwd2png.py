#!/usr/bin/env python3
"""Turns an xwd screenshot (32-bit TrueColor, as Xvfb's root window is) into a PNG, with the
standard library only. Usage: xwd2png.py in.xwd out.png [x y width height]"""
import struct
import sys
import zlib


def read_xwd(path):
    data = open(path, "rb").read()
    fields = struct.unpack(">25I", data[:100])
    header_size, _, _, _, width, height = fields[:6]
    byte_order, bits_per_pixel, bytes_per_line = fields[7], fields[11], fields[12]
    red_mask, green_mask, blue_mask = fields[14:17]
    ncolors = fields[19]
    # Some servers say 24 bits a pixel but store four bytes each.
    step = bytes_per_line // width
    if step not in (3, 4):
        raise SystemExit("only 24- or 32-bit TrueColor xwd files")
    offset = header_size + ncolors * 12
    order = "<" if byte_order == 0 else ">"

    def shift(mask):
        return (mask & -mask).bit_length() - 1

    rs, gs, bs = shift(red_mask), shift(green_mask), shift(blue_mask)
    pixels = []
    for y in range(height):
        row = data[offset + y * bytes_per_line: offset + y * bytes_per_line + width * step]
        if step == 4:
            values = struct.unpack(order + "%dI" % width, row)
        else:
            values = [int.from_bytes(row[i:i + 3], "little" if order == "<" else "big") for i in range(0, len(row), 3)]
        pixels.append([((v & red_mask) >> rs, (v & green_mask) >> gs, (v & blue_mask) >> bs) for v in values])
    return width, height, pixels


def write_png(path, pixels):
    height, width = len(pixels), len(pixels[0])
    raw = b"".join(b"\x00" + bytes(c for p in row for c in p) for row in pixels)

    def chunk(kind, body):
        return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body) & 0xFFFFFFFF)

    png = b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0))
    png += chunk(b"IDAT", zlib.compress(raw, 9)) + chunk(b"IEND", b"")
    open(path, "wb").write(png)


if __name__ == "__main__":
    w, h, px = read_xwd(sys.argv[1])
    if len(sys.argv) == 7:
        x, y, cw, ch = map(int, sys.argv[3:7])
        px = [row[x:x + cw] for row in px[y:y + ch]]
    write_png(sys.argv[2], px)
