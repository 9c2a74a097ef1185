/**
 * The lab matrix: which cells exist, what each one means, how users name them,
 * and which cell each is compared with.
 *
 * Besides the 10 built-in cells (and the 2 opt-in naive-relay cells), every
 * external proxy in `LabConfig.via` adds `via-<name>+h2` and `via-<name>+h1`. Those exist only for the names given, so
 * functions that accept cell names take the via names as a second argument.
 */
import type { BuiltInCellId, CellId, CellSettings, ViaCellId } from './types.js';

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

/**
 * Opt-in cells: the intercepting HTTP/1.1 proxy relaying as a naive proxy does (ProxyOptions
 * `relay: 'naive'`), Nagle off and on. They show what Nagle costs a proxy that does not coalesce
 * (the default proxy sends each image's head and body in one write, so Nagle has nothing to hold:
 * docs/lab.md). Not in the default run nor in `all` (they would add a fifth to its run time
 * to answer a question about other proxies); named by id or by any pattern with `naive`.
 */
export const NAIVE_CELLS: readonly CellId[] = ['proxy+h1+intercept+naive', 'proxy+h1+intercept+naive+nagle'];

/** A valid external proxy name (also what `via-<name>` cells are made of). */
export const VIA_NAME = /^[a-z0-9][a-z0-9-]{0,31}$/;
const VIA_CELL = /^via-([a-z0-9][a-z0-9-]{0,31})\+(h2|h1)$/;

/** The two cells of one external proxy, h2 first (as the built-in cells list them). */
export function viaCells(name: string): ViaCellId[] {
  return [`via-${name}+h2`, `via-${name}+h1`];
}

/** Every cell that can be run: the built-in cells, the naive-relay cells, then both cells of each external proxy in the order given. */
export function allCells(viaNames: readonly string[] = []): CellId[] {
  return [...ALL_CELLS, ...NAIVE_CELLS, ...viaNames.flatMap(viaCells)];
}

/** What runs when no cells are named, and what `all` means: every cell but the opt-in naive-relay ones. */
export function defaultCells(viaNames: readonly string[] = []): CellId[] {
  return [...ALL_CELLS, ...viaNames.flatMap(viaCells)];
}

/** `via-<name>+h2|h1` → its parts, whatever the name (for results read back from disk). */
export function parseViaCell(s: string): { name: string; http2: boolean } | undefined {
  const m = VIA_CELL.exec(s);
  return m ? { name: m[1], http2: m[2] === 'h2' } : undefined;
}

export function isViaCellId(s: string): s is ViaCellId {
  return parseViaCell(s) !== undefined;
}

/** A built-in cell, or a via cell of one of `viaNames`. */
export function isCellId(s: string, viaNames: readonly string[] = []): s is CellId {
  if ((ALL_CELLS as readonly string[]).includes(s) || (NAIVE_CELLS as readonly string[]).includes(s)) return true;
  const via = parseViaCell(s);
  return via !== undefined && viaNames.includes(via.name);
}

export function cellSettings(id: CellId): CellSettings {
  // `<cell>~<name>`: the base cell's settings plus the variant (variants.ts).
  const tilde = id.indexOf('~');
  if (tilde > 0) return { ...cellSettings(id.slice(0, tilde) as CellId), variant: id.slice(tilde + 1) };
  const via = parseViaCell(id);
  // The lab controls neither interception nor Nagle in another proxy: both false, so
  // no "one setting switched" pair ever matches a via cell with a Netlens cell.
  if (via) return { proxy: true, http2: via.http2, intercept: false, nagle: false, via: via.name };
  const parts = id.split('+');
  const proxy = parts[0] === 'proxy';
  return {
    proxy,
    http2: parts[1] === 'h2',
    intercept: proxy && parts[2] === 'intercept',
    nagle: proxy && parts.includes('nagle'),
    ...(proxy && parts.includes('naive') ? { naive: true } : {}),
  };
}

export function cellId(s: CellSettings): CellId {
  if (s.variant) return `${cellId({ ...s, variant: undefined }) as BuiltInCellId}~${s.variant}`;
  if (s.via) return `via-${s.via}+${s.http2 ? 'h2' : 'h1'}`;
  if (!s.proxy) return s.http2 ? 'direct+h2' : 'direct+h1';
  const suffix = `${s.naive ? '+naive' : ''}${s.nagle ? '+nagle' : ''}`;
  return `proxy+${s.http2 ? 'h2' : 'h1'}+${s.intercept ? 'intercept' : 'tunnel'}${suffix}` as CellId;
}

/** The parts a pattern can name: `via-x+h2` also answers to `via` (every via cell). */
function cellParts(id: CellId): string[] {
  const parts = id.split('+');
  return isViaCellId(id) ? ['via', ...parts] : parts;
}

/**
 * Parses a cell list as users type it: `all`, or comma-separated ids or patterns
 * whose parts must all appear, e.g. `direct,proxy+h2` (both direct cells and the
 * four proxy+h2 cells) or `direct+h2,proxy+h2+intercept`; `via` selects every
 * via cell, `via-mitmproxy` both cells of that proxy. Via cells exist only for
 * `viaNames`. `all` is `defaultCells`; the naive-relay cells answer only to their
 * ids and to patterns with `naive` (`naive`, `naive+nagle`), so `nagle` or
 * `proxy+h1` select what they always did. Unknown names throw with the list of valid ones. The result keeps
 * `allCells(viaNames)` order, without duplicates.
 */
export function parseCells(list: string, viaNames: readonly string[] = []): CellId[] {
  const universe = allCells(viaNames);
  const wanted = new Set<CellId>();
  for (const raw of list
    .split(',')
    .map((s) => s.trim().toLowerCase())
    .filter(Boolean)) {
    if (raw === 'all') {
      defaultCells(viaNames).forEach((c) => wanted.add(c));
      continue;
    }
    if (isCellId(raw, viaNames)) {
      wanted.add(raw);
      continue;
    }
    // A pattern: every part must be one of the cell's parts ("proxy+nagle" → the 4 Nagle cells).
    const parts = raw.split('+');
    const optIn = (c: CellId) => NAIVE_CELLS.includes(c) && !parts.includes('naive');
    const matches = universe.filter((c) => !optIn(c) && parts.every((p) => cellParts(c).includes(p)));
    if (matches.length === 0) throw new Error(unknownCellMessage(raw, viaNames));
    matches.forEach((c) => wanted.add(c));
  }
  if (wanted.size === 0) throw new Error('no cells given');
  return universe.filter((c) => wanted.has(c));
}

/** "unknown cell …, valid cells: …", with a hint when it looks like a via cell of a proxy not given. */
export function unknownCellMessage(raw: string, viaNames: readonly string[] = []): string {
  const hint = raw.startsWith('via')
    ? viaNames.length
      ? ` (external proxies given: ${viaNames.join(', ')})`
      : ' (via cells need their external proxy: --via NAME=URL)'
    : '';
  const examples = '(or parts of them, e.g. "direct", "proxy+h2", "naive" or "via")';
  return `unknown cell "${raw}"${hint}. Valid cells: all, ${allCells(viaNames).join(', ')} ${examples}`;
}

/**
 * The cell `id` is compared with: `'direct'` means the direct cell with the same
 * HTTP/2 setting. Returns undefined for the baseline itself.
 */
export function baselineFor(id: CellId, baseline: 'direct' | CellId): CellId | undefined {
  const b = baseline === 'direct' ? (cellSettings(id).http2 ? 'direct+h2' : 'direct+h1') : baseline;
  return b === id ? undefined : b;
}

/**
 * The baselines that make sense for a set of cells being run: `'direct'` when at
 * least one direct cell is among them, then each of the cells. A baseline that is
 * not run compares nothing (every ratio and p-value empty), so it is never offered.
 */
export function baselineChoices(cells: readonly CellId[]): Array<'direct' | CellId> {
  const direct = cells.some((c) => c === 'direct+h2' || c === 'direct+h1');
  return [...(direct ? (['direct'] as const) : []), ...cells];
}

/**
 * Why `baseline` cannot be used with `cells` (one check for the CLI, the API and
 * the runner), or undefined when it can. `'direct'` needs a direct cell among the
 * cells; a cell id must be one of them.
 */
export function baselineProblem(cells: readonly CellId[], baseline: 'direct' | CellId): string | undefined {
  if (baselineChoices(cells).includes(baseline)) return undefined;
  const choices = baselineChoices(cells).join(', ');
  if (baseline === 'direct') {
    return `baseline "direct" compares each cell with the direct cell of its HTTP/2 setting, but no direct cell (direct+h2, direct+h1) is being run; add one to the cells or pick a baseline among: ${choices}`;
  }
  return `baseline cell "${baseline}" is not among the cells being run (${cells.join(', ')}); add it to the cells or pick a baseline among: ${choices}`;
}
