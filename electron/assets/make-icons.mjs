#!/usr/bin/env node
/**
 * Renders icon.png (512×512) from the shapes of icon.svg with no image
 * library, and wraps it as icon.ico (Windows) and icon.icns (macOS), both of
 * which may carry PNG data. Run once after changing the design; outputs are committed.
 */
import fs from 'node:fs';
import zlib from 'node:zlib';

const N = 512;
const px = Buffer.alloc(N * N * 4);
const hex = (h) => [parseInt(h.slice(1, 3), 16), parseInt(h.slice(3, 5), 16), parseInt(h.slice(5, 7), 16)];
const inRoundRect = (x, y, rx, ry, w, h, r) => {
  if (x < rx || y < ry || x > rx + w || y > ry + h) return false;
  const cx = Math.min(Math.max(x, rx + r), rx + w - r);
  const cy = Math.min(Math.max(y, ry + r), ry + h - r);
  return (x - cx) ** 2 + (y - cy) ** 2 <= r * r;
};
const distToSegment = (x, y, x1, y1, x2, y2) => {
  const t = Math.max(0, Math.min(1, ((x - x1) * (x2 - x1) + (y - y1) * (y2 - y1)) / ((x2 - x1) ** 2 + (y2 - y1) ** 2)));
  return Math.hypot(x - (x1 + t * (x2 - x1)), y - (y1 + t * (y2 - y1)));
};
// Same shapes as icon.svg, painted in order; 4×4 supersampling for smooth edges.
const shapes = [
  [(x, y) => inRoundRect(x, y, 16, 16, 480, 480, 96), hex('#1d4ed8')],
  [(x, y) => inRoundRect(x, y, 150, 170, 110, 34, 8), hex('#93c5fd')],
  [(x, y) => inRoundRect(x, y, 190, 222, 140, 34, 8), hex('#86efac')],
  [(x, y) => inRoundRect(x, y, 170, 274, 90, 34, 8), hex('#fde68a')],
  [(x, y) => Math.abs(Math.hypot(x - 240, y - 240) - 140) <= 18, hex('#ffffff')],
  [(x, y) => distToSegment(x, y, 345, 345, 430, 430) <= 24, hex('#ffffff')],
];
for (let y = 0; y < N; y++) {
  for (let x = 0; x < N; x++) {
    let r = 0,
      g = 0,
      b = 0,
      a = 0;
    for (let sy = 0; sy < 4; sy++) {
      for (let sx = 0; sx < 4; sx++) {
        let c;
        for (const [inside, color] of shapes) if (inside(x + (sx + 0.5) / 4, y + (sy + 0.5) / 4)) c = color;
        if (c) {
          r += c[0];
          g += c[1];
          b += c[2];
          a += 1;
        }
      }
    }
    const i = (y * N + x) * 4;
    if (a) {
      px[i] = r / a;
      px[i + 1] = g / a;
      px[i + 2] = b / a;
    }
    px[i + 3] = Math.round((a / 16) * 255);
  }
}

function crc32(buf) {
  let c = ~0;
  for (const byte of buf) {
    c ^= byte;
    for (let k = 0; k < 8; k++) c = (c >>> 1) ^ (0xedb88320 & -(c & 1));
  }
  return ~c >>> 0;
}
const chunk = (type, data) => {
  const len = Buffer.alloc(4);
  len.writeUInt32BE(data.length);
  const td = Buffer.concat([Buffer.from(type), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(td));
  return Buffer.concat([len, td, crc]);
};
const ihdr = Buffer.alloc(13);
ihdr.writeUInt32BE(N, 0);
ihdr.writeUInt32BE(N, 4);
ihdr.set([8, 6, 0, 0, 0], 8); // 8-bit RGBA
const raw = Buffer.alloc(N * (N * 4 + 1));
for (let y = 0; y < N; y++) px.copy(raw, y * (N * 4 + 1) + 1, y * N * 4, (y + 1) * N * 4);
const png = Buffer.concat([
  Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
  chunk('IHDR', ihdr),
  chunk('IDAT', zlib.deflateSync(raw, { level: 9 })),
  chunk('IEND', Buffer.alloc(0)),
]);

const dir = new URL('.', import.meta.url);
fs.writeFileSync(new URL('icon.png', dir), png);
// ICO: one PNG-compressed image (width/height byte 0 = 256+, valid for Vista and later).
const ico = Buffer.alloc(22);
ico.writeUInt16LE(0, 0);
ico.writeUInt16LE(1, 2);
ico.writeUInt16LE(1, 4);
ico.set([0, 0, 0, 0], 6);
ico.writeUInt16LE(1, 10);
ico.writeUInt16LE(32, 12);
ico.writeUInt32LE(png.length, 14);
ico.writeUInt32LE(22, 18);
fs.writeFileSync(new URL('icon.ico', dir), Buffer.concat([ico, png]));
// ICNS: one 'ic09' (512×512 PNG) entry.
const entry = Buffer.alloc(8);
entry.write('ic09', 0);
entry.writeUInt32BE(png.length + 8, 4);
const head = Buffer.alloc(8);
head.write('icns', 0);
head.writeUInt32BE(png.length + 16, 4);
fs.writeFileSync(new URL('icon.icns', dir), Buffer.concat([head, entry, png]));
console.log(`icons: icon.png ${png.length} B, icon.ico, icon.icns`);
