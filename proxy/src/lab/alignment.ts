/**
 * Browser and proxy side by side in the lab (docs/timings.md): each proxy run's
 * proxy HAR gets the matched browser entries (`_browser`, har/align.ts), the run
 * a short summary, and each cell the per-part median of its runs' medians.
 */
import fs from 'node:fs';
import { alignHars, BREAKDOWN_PARTS, type Breakdown, withBrowserSide } from '../har/align.js';
import type { Har } from '../har/types.js';
import { median } from './stats.js';
import type { CellBreakdown, RunAlignment, RunMeasurement } from './types.js';

/** Aligns `browserHar` with the proxy HAR in `proxyHarFile` and rewrites that file with `_browser` and `_alignment`. */
export async function alignRunHars(browserHar: Har, proxyHarFile: string): Promise<RunAlignment> {
  const proxyHar = JSON.parse(await fs.promises.readFile(proxyHarFile, 'utf8')) as Har;
  const alignment = alignHars(browserHar, proxyHar);
  await fs.promises.writeFile(proxyHarFile, JSON.stringify(withBrowserSide(proxyHar, alignment)));
  const s = alignment.summary;
  return {
    matched: s.matched,
    browserEntries: s.browserEntries,
    proxyEntries: s.proxyEntries,
    unmatchedBrowser: s.unmatchedBrowser.length,
    unmatchedProxy: s.unmatchedProxy.length,
    offsetMs: s.offsetMs,
    ...(s.medianBreakdown ? { medianBreakdown: s.medianBreakdown } : {}),
  };
}

/** CellResult.breakdown; undefined when no successful run of the cell was aligned (direct and via cells). */
export function cellBreakdown(runs: readonly RunMeasurement[]): CellBreakdown | undefined {
  const aligned = runs.filter((r) => r.ok && r.alignment?.medianBreakdown);
  if (!aligned.length) return undefined;
  const out = {} as Breakdown;
  for (const k of BREAKDOWN_PARTS) out[k] = Math.round(median(aligned.map((r) => r.alignment!.medianBreakdown![k])) * 1000) / 1000;
  return {
    runs: aligned.length,
    median: out,
    matched: aligned.reduce((n, r) => n + r.alignment!.matched, 0),
    browserEntries: aligned.reduce((n, r) => n + r.alignment!.browserEntries, 0),
  };
}
