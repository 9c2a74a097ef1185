/**
 * The lab matrix: which cells exist, what each one means, how users name them,
 * and which cell each is compared with.
 */
import type { CellId, CellSettings } from './types.js';

/** All 10 meaningful cells, in the order tables list them: direct first, then proxy by protocol. */
export const ALL_CELLS: readonly CellId[] = [
  'direct+h2',
  'direct+h1',
  'proxy+h2+intercept',
  'proxy+h2+intercept+nagle',
  'proxy+h2+tunnel',
  'proxy+h2+tunnel+nagle',
  'proxy+h1+intercept',
  'proxy+h1+intercept+nagle',
  'proxy+h1+tunnel',
  'proxy+h1+tunnel+nagle',
];

export function isCellId(s: string): s is CellId {
  return (ALL_CELLS as readonly string[]).includes(s);
}

export function cellSettings(id: CellId): CellSettings {
  const parts = id.split('+');
  const proxy = parts[0] === 'proxy';
  return {
    proxy,
    http2: parts[1] === 'h2',
    intercept: proxy && parts[2] === 'intercept',
    nagle: proxy && parts.includes('nagle'),
  };
}

export function cellId(s: CellSettings): CellId {
  if (!s.proxy) return s.http2 ? 'direct+h2' : 'direct+h1';
  return `proxy+${s.http2 ? 'h2' : 'h1'}+${s.intercept ? 'intercept' : 'tunnel'}${s.nagle ? '+nagle' : ''}` as CellId;
}

/**
 * Parses a cell list as users type it: `all`, or comma-separated ids or patterns
 * whose parts must all appear, e.g. `direct,proxy+h2` (both direct cells and the
 * four proxy+h2 cells) or `direct+h2,proxy+h2+intercept`. Unknown names throw
 * with the list of valid ones. The result keeps ALL_CELLS order, without duplicates.
 */
export function parseCells(list: string): CellId[] {
  const wanted = new Set<CellId>();
  for (const raw of list.split(',').map((s) => s.trim().toLowerCase()).filter(Boolean)) {
    if (raw === 'all') {
      ALL_CELLS.forEach((c) => wanted.add(c));
      continue;
    }
    if (isCellId(raw)) {
      wanted.add(raw);
      continue;
    }
    // A pattern: every part must be one of the cell's parts ("proxy+nagle" → the 4 Nagle cells).
    const parts = raw.split('+');
    const matches = ALL_CELLS.filter((c) => parts.every((p) => c.split('+').includes(p)));
    if (matches.length === 0) {
      throw new Error(`unknown cell "${raw}". Valid cells: all, ${ALL_CELLS.join(', ')} (or parts of them, e.g. "direct" or "proxy+h2")`);
    }
    matches.forEach((c) => wanted.add(c));
  }
  if (wanted.size === 0) throw new Error('no cells given');
  return ALL_CELLS.filter((c) => wanted.has(c));
}

/**
 * The cell `id` is compared with: `'direct'` means the direct cell with the same
 * HTTP/2 setting. Returns undefined for the baseline itself.
 */
export function baselineFor(id: CellId, baseline: 'direct' | CellId): CellId | undefined {
  const b = baseline === 'direct' ? (cellSettings(id).http2 ? 'direct+h2' : 'direct+h1') : baseline;
  return b === id ? undefined : b;
}
