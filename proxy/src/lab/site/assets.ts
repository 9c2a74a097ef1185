/**
 * The test site's content, generated in memory once per site:
 *  - N tiny, distinct PNG images (8×8, one colour each, so no two bodies are equal
 *    and nothing can be deduplicated by a cache along the way);
 *  - a stylesheet and a script of tens of KiB, which the server sends in many
 *    small writes: the pattern that exposes Nagle's algorithm on a proxy;
 *  - the HTML page that references all of them.
 */
import zlib from 'node:zlib';

const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

function chunk(type: string, data: Buffer): Buffer {
  const len = Buffer.alloc(4);
  len.writeUInt32BE(data.length);
  const typeAndData = Buffer.concat([Buffer.from(type, 'ascii'), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(zlib.crc32(typeAndData) >>> 0);
  return Buffer.concat([len, typeAndData, crc]);
}

/** An 8×8 RGB PNG of one colour derived from `index` (distinct for index < 2^24). */
export function pngImage(index: number, size = 8): Buffer {
  // Spread consecutive indexes over visibly different colours (Knuth's multiplicative hash).
  const rgb = (Math.imul(index + 1, 2654435761) >>> 8) & 0xffffff;
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(size, 0);
  ihdr.writeUInt32BE(size, 4);
  ihdr[8] = 8; // bit depth
  ihdr[9] = 2; // colour type: truecolour RGB
  // compression, filter, interlace: 0
  const row = Buffer.alloc(1 + size * 3); // filter byte 0, then pixels
  for (let x = 0; x < size; x++) {
    row[1 + x * 3] = (rgb >> 16) & 0xff;
    row[2 + x * 3] = (rgb >> 8) & 0xff;
    row[3 + x * 3] = rgb & 0xff;
  }
  // The index also goes into a text chunk, so even colour collisions give distinct bytes.
  const text = Buffer.from(`Comment\0netlens test image ${index}`, 'latin1');
  const idat = zlib.deflateSync(Buffer.concat(Array.from({ length: size }, () => row)));
  return Buffer.concat([PNG_SIGNATURE, chunk('IHDR', ihdr), chunk('tEXt', text), chunk('IDAT', idat), chunk('IEND', Buffer.alloc(0))]);
}

/** A stylesheet of about `bytes` bytes (rules for the image grid, then filler rules). */
export function stylesheet(bytes: number): Buffer {
  let css = 'body{font-family:sans-serif;margin:8px}img{width:8px;height:8px;margin:1px}\n';
  for (let i = 0; css.length < bytes; i++)
    css += `.netlens-rule-${i}{color:#${(((i * 2654435761) >>> 8) & 0xffffff).toString(16).padStart(6, '0')};padding:${i % 7}px}\n`;
  return Buffer.from(css);
}

/** A script of about `bytes` bytes that does a little work and marks the page. */
export function script(bytes: number, name: string): Buffer {
  let js = `window.netlens=(window.netlens||[]);window.netlens.push(${JSON.stringify(name)});\n`;
  for (let i = 0; js.length < bytes; i++) js += `function netlensFiller${i}(a){return a*${i}+${i % 13};}\n`;
  return Buffer.from(js);
}

export function page(images: number, title: string): Buffer {
  const imgs = Array.from({ length: images }, (_, i) => `<img src="/img/${i}.png" alt="">`).join('');
  return Buffer.from(`<!doctype html>
<html><head><meta charset="utf-8"><title>${title}</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="/style.css">
<script src="/app.js" defer></script>
<script src="/chunked.js" defer></script>
</head><body>
<h1>${title}</h1>
<p>${images} images, a stylesheet and two scripts, served in many small writes.</p>
<div>${imgs}</div>
</body></html>
`);
}

/** Requests a full load of the page makes: the page, style.css, app.js, chunked.js and the images. */
export function expectedRequests(images: number): number {
  return images + 4;
}
