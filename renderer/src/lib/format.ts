/** Number and text formatting shared by every view (DevTools conventions: kB = 1000 B). */

export function formatBytes(n: number | undefined): string {
  if (n === undefined || n < 0 || !Number.isFinite(n)) return '–';
  if (n < 1000) return `${n} B`;
  if (n < 1000 * 1000) return `${(n / 1000).toFixed(n < 10_000 ? 2 : 1)} kB`;
  if (n < 1000 ** 3) return `${(n / 1000 ** 2).toFixed(n < 10_000_000 ? 2 : 1)} MB`;
  return `${(n / 1000 ** 3).toFixed(2)} GB`;
}

/** 0.42 ms, 12.3 ms, 245 ms, 1.24 s, 83.1 s, 12.4 min, 5.2 h, 117.5 d (imported HARs can span months). */
export function formatMs(ms: number | undefined): string {
  if (ms === undefined || ms < 0 || !Number.isFinite(ms)) return '–';
  if (ms < 1) return `${ms.toFixed(2)} ms`;
  if (ms < 100) return `${ms.toFixed(1)} ms`;
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(ms < 10_000 ? 2 : 1)} s`;
  if (ms < 3_600_000) return `${(ms / 60_000).toFixed(1)} min`;
  if (ms < 86_400_000) return `${(ms / 3_600_000).toFixed(1)} h`;
  return `${(ms / 86_400_000).toFixed(1)} d`;
}

/** Ratio to a baseline: ×1.00, ×2.35, ×18.2. */
export function formatRatio(r: number | undefined): string {
  if (r === undefined || !Number.isFinite(r)) return '–';
  return `×${r >= 10 ? r.toFixed(1) : r.toFixed(2)}`;
}

/** p-values as papers write them: 0.032, < 0.001. */
export function formatPValue(p: number | undefined): string {
  if (p === undefined || !Number.isFinite(p)) return '–';
  if (p < 0.001) return '< 0.001';
  return p.toFixed(3);
}

/** The last path segment of a URL (DevTools' "Name" column), falling back to the host. */
export function displayName(url: string): string {
  try {
    const u = new URL(url);
    const segs = u.pathname.split('/').filter(Boolean);
    const last = segs.length ? decodeURIComponent(segs[segs.length - 1]!) : u.host;
    return last + (u.search.length > 1 ? u.search : '');
  } catch {
    return url;
  }
}

/** Classic hex dump: offset, 16 bytes in hex, ASCII. */
export function hexDump(bytes: Uint8Array, maxBytes = 64 * 1024): string {
  const n = Math.min(bytes.length, maxBytes);
  const lines: string[] = [];
  for (let off = 0; off < n; off += 16) {
    const row = bytes.subarray(off, Math.min(off + 16, n));
    const hex = Array.from(row, (b) => b.toString(16).padStart(2, '0')).join(' ');
    const ascii = Array.from(row, (b) => (b >= 0x20 && b < 0x7f ? String.fromCharCode(b) : '.')).join('');
    lines.push(`${off.toString(16).padStart(8, '0')}  ${hex.padEnd(47)}  ${ascii}`);
  }
  return lines.join('\n');
}

export function base64ToBytes(b64: string): Uint8Array {
  const bin = atob(b64);
  const out = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; i++) out[i] = bin.charCodeAt(i);
  return out;
}

/** Pretty JSON when the text parses as JSON; undefined otherwise. */
/** Bytes → base64, in chunks (a spread of a large array would overflow the call stack). */
export function bytesToBase64(bytes: Uint8Array): string {
  let bin = '';
  for (let i = 0; i < bytes.length; i += 0x8000) bin += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(bin);
}

export function prettyJson(text: string): string | undefined {
  const t = text.trim();
  if (!(t.startsWith('{') || t.startsWith('['))) return undefined;
  try {
    return JSON.stringify(JSON.parse(t), null, 2);
  } catch {
    return undefined;
  }
}

/** "1 request", "2 requests", "1,024 requests": a count with its noun in the right number. */
export function plural(n: number, one: string, many = `${one}s`): string {
  return `${n.toLocaleString('en-US')} ${n === 1 ? one : many}`;
}

/** Sizes in binary units, as limits are written (64 KiB, 95.0 MiB): for values the core cut. */
export function formatBinaryBytes(n: number | undefined): string {
  if (n === undefined || n < 0 || !Number.isFinite(n)) return '–';
  if (n < 1024) return `${n} B`;
  const units = ['KiB', 'MiB', 'GiB'];
  let v = n / 1024;
  let u = 0;
  while (v >= 1024 && u < units.length - 1) {
    v /= 1024;
    u++;
  }
  // 64 KiB (a limit) reads better whole; 95.0 MiB (a measured size) with one decimal.
  return `${u === 0 && Number.isInteger(v) ? v : v.toFixed(1)} ${units[u]}`;
}
