/**
 * `netlens lab report DIR --html FILE` and the Lab view's "Export report": one
 * self-contained HTML file (tables, inline SVG charts, the median run's
 * waterfall per cell, machine and versions) that opens offline, with no script
 * and no external reference, to attach to a ticket.
 */
import fs from 'node:fs';
import path from 'node:path';
import { baselineFor } from './cells.js';
import { minPValue } from './limits.js';
import { readRunDir } from './history.js';
import { targetLabel } from './history.js';
import {
  BREAKDOWN_SEGMENTS,
  browserPriorityText,
  isNaiveRelay,
  cpuText,
  matchedText,
  missingBreakdownReason,
  NAIVE_RELAY_NOTE,
  readBreakdown,
  readStalls,
  stallCountText,
  stallWallMs,
} from './cell-detail.js';
import { barChart, esc, fmtMs, stackedBarChart, waterfallEntries, waterfallSvg, type WaterfallEntry } from './report-svg.js';
import type { CellId, CellResult, Comparison, LabResult, MetricName } from './types.js';
import { cellVerdict, isNoisy, type Verdict } from './verdict.js';

/** HAR files above this are not embedded (the report says so). */
const HAR_MAX_BYTES = 100 * 2 ** 20;

const duration = (ms: number) => {
  if (!Number.isFinite(ms)) return '?';
  return ms < 60_000 ? `${(ms / 1000).toFixed(1)} s` : `${Math.floor(ms / 60_000)} min ${Math.round((ms % 60_000) / 1000)} s`;
};
const pText = (p: number | undefined) => (p === undefined || !Number.isFinite(p) ? '–' : p < 0.001 ? '<0.001' : p.toFixed(3));
const ratio = (c: Comparison | undefined) => (c && Number.isFinite(c.ratio) ? `${c.ratio.toFixed(2)}×` : '–');

const STYLE = `
body{font:14px/1.45 system-ui,-apple-system,"Segoe UI",sans-serif;color:#202124;margin:24px auto;max-width:1180px;padding:0 16px}
h1{font-size:22px;margin:0 0 4px}h2{font-size:17px;margin:28px 0 8px;border-bottom:1px solid #dadce0;padding-bottom:4px}h3{font-size:14px;margin:16px 0 4px}
.muted{color:#5f6368}
table{border-collapse:collapse;margin:6px 0;font-size:13px}
th,td{border:1px solid #dadce0;padding:3px 8px;text-align:left;vertical-align:top}
th{background:#f1f3f4}td.n{text-align:right;font-variant-numeric:tabular-nums}.mono{font-family:ui-monospace,Menlo,Consolas,monospace}
.slower{color:#b3261e;font-weight:600}.faster{color:#137333;font-weight:600}.same,.baseline,.none,.no-baseline{color:#5f6368}
.tag{display:inline-block;font-size:11px;border-radius:3px;padding:0 5px;margin-left:6px;background:#e8eaed}.tag.noisy{background:#fbe3b1;color:#7a4b00}
svg text{font:11px system-ui,sans-serif;fill:#3c4043}svg .ttl{font-weight:600;font-size:13px}svg .tick{fill:#80868b;font-size:10px}
svg .wfn{font:10px ui-monospace,monospace}svg .bad{fill:#b3261e}.sc{fill:#f9ab00}.sw{fill:#34a853}.sr{fill:#1a73e8}
.legend span{display:inline-block;width:10px;height:10px;margin:0 4px 0 12px;vertical-align:middle}
.legend .sc{background:#f9ab00}.legend .sw{background:#34a853}.legend .sr{background:#1a73e8}td.n{white-space:nowrap}
svg .tag-naive{fill:#7a4b00;font-weight:600}svg .missing{fill:#5f6368;font-style:italic}.tag.naive{background:#fbe3b1;color:#7a4b00}
td.missing{color:#5f6368;font-style:italic}
@media print{h2{break-after:avoid}svg{max-width:100%;height:auto}}`;

function verdictCell(v: Verdict): string {
  return `<td class="${v.kind}">${esc(v.text)}</td>`;
}

function resultsTable(result: LabResult): string {
  const rows = result.cells.map((c) => {
    const isBase = baselineFor(c.id, result.config.baseline) === undefined;
    const s = c.stats.loadMs;
    const t = c.stats.ttfbMedianMs;
    const ok = c.runs.filter((r) => r.ok).length;
    const noisy = isNoisy(c)
      ? `<span class="tag noisy" title="load time CV above 10%">noisy, CV ${((s?.cv ?? 0) * 100).toFixed(0)}%</span>`
      : '';
    const base = isBase ? '<span class="tag">baseline</span>' : '';
    const vs = c.comparisons.loadMs?.baseline ?? c.comparisons.ttfbMedianMs?.baseline;
    return `<tr><td class="mono">${esc(c.id)}${base}${noisy}${naiveTag(c)}</td><td class="n">${ok}/${c.runs.length}</td><td class="mono">${esc(vs ?? '–')}</td>
<td class="n">${fmtMs(s?.median)}</td><td class="n">${fmtMs(s?.p95)}</td><td class="n">${s ? (s.cv * 100).toFixed(0) + '%' : '–'}</td>
<td class="n">${ratio(c.comparisons.loadMs)}</td><td class="n">${pText(c.comparisons.loadMs?.p)}</td>${verdictCell(cellVerdict(c, 'loadMs', isBase))}
<td class="n">${fmtMs(t?.median)}</td>
<td class="n">${ratio(c.comparisons.ttfbMedianMs)}</td>
<td class="n">${pText(c.comparisons.ttfbMedianMs?.p)}</td>${verdictCell(cellVerdict(c, 'ttfbMedianMs', isBase))}</tr>`;
  });
  return `<table><thead><tr><th>Cell</th>
<th>OK runs</th>
<th>Compared with</th>
<th>Load median</th>
<th>Load p95</th>
<th>CV</th>
<th>Ratio</th>
<th>p</th>
<th>Load verdict</th>
<th>TTFB median</th><th>TTFB ratio</th><th>TTFB p</th><th>TTFB verdict</th></tr></thead><tbody>${rows.join('\n')}</tbody></table>`;
}

function chart(result: LabResult, metric: MetricName, title: string): string {
  const data = result.cells.flatMap((c) => {
    const s = c.stats[metric];
    return s ? [{ label: c.id, median: s.median, min: s.min, max: s.max, warn: metric === 'loadMs' && isNoisy(c), ...naiveMark(c) }] : [];
  });
  return data.length ? barChart(title, data) : '';
}

/** Naive-relay cells are striped and tagged in every chart, so a reader sees which cells relay naively. */
const naiveMark = (c: CellResult) => (isNaiveRelay(c) ? { striped: true, tag: 'naive relay' } : {});

const naiveTag = (c: CellResult) =>
  isNaiveRelay(c) ? `<span class="tag naive" title="${esc(NAIVE_RELAY_NOTE)}" data-naive>naive relay</span>` : '';

/** Per cell: Nagle/delayed-ACK stalls per run and the browser/proxy breakdown, as a table and two charts. */
function stallsAndBreakdown(result: LabResult): string {
  const rows = result.cells.map((c) => {
    const wall = stallWallMs(c);
    const stalls = readStalls(c)
      ? `<td class="n" data-stalls>${esc(stallCountText(c))}</td><td class="n">${wall === undefined ? '–' : fmtMs(wall)}</td>`
      : '<td class="n" data-stalls>–</td><td class="n">–</td>';
    const b = readBreakdown(c);
    const parts = b
      ? BREAKDOWN_SEGMENTS.map((s) => `<td class="n">${fmtMs(b.median[s.part])}</td>`).join('') +
        `<td class="n">${esc(matchedText(b))}</td>`
      : `<td colspan="${BREAKDOWN_SEGMENTS.length + 1}" class="missing" data-no-breakdown>${esc(missingBreakdownReason(c))}</td>`;
    const cpu = cpuText(c);
    const cpuRow = cpu
      ? `\n<tr class="cpu"><td></td><td colspan="${BREAKDOWN_SEGMENTS.length + 3}" class="muted" data-cpu>CPU per load: ${esc(cpu)}</td></tr>`
      : '';
    return `<tr><td class="mono">${esc(c.id)}${naiveTag(c)}</td>${stalls}${parts}</tr>${cpuRow}`;
  });
  const stallData = result.cells.flatMap((c) => {
    const s = readStalls(c);
    return s ? [{ label: c.id, median: s.median, min: s.min, max: s.max, ...naiveMark(c) }] : [];
  });
  const count = (v: number | undefined) => (v === undefined || !Number.isFinite(v) ? '–' : String(Math.round(v * 10) / 10));
  const stallChart = stallData.length
    ? barChart('Nagle/delayed-ACK stalls per run — median, whiskers min…max', stallData, count)
    : '<p class="muted" data-no-stalls>No cell counted stalls: only Netlens proxy cells have a socket timeline to count them on.</p>';
  const naive = result.cells.some(isNaiveRelay)
    ? `<p class="muted">Striped bars tagged “naive relay” (and the <span class="tag naive">naive relay</span> tag) mark the cells whose
proxy uses the naive relay: ${esc(NAIVE_RELAY_NOTE.replace(/^naive relay: /, ''))}.</p>`
    : '';
  const breakdownChart = stackedBarChart(
    'Where the browser’s time went — per-part median over the aligned runs',
    BREAKDOWN_SEGMENTS,
    result.cells.map((c) => {
      const b = readBreakdown(c);
      return {
        label: c.id,
        ...(b
          ? { parts: BREAKDOWN_SEGMENTS.map((s) => ({ label: s.label, color: s.color, value: b.median[s.part] })) }
          : { missing: missingBreakdownReason(c, true) }),
        ...naiveMark(c),
      };
    }),
  );
  return `<h2>Stalls and where the browser’s time went</h2>
<table><thead><tr><th>Cell</th><th>Stalls per run</th><th>Stalled (wall clock)</th>
${BREAKDOWN_SEGMENTS.map((s) => `<th>${esc(s.label[0].toUpperCase() + s.label.slice(1))}</th>`).join('')}<th>Requests matched</th></tr></thead>
<tbody>${rows.join('\n')}</tbody></table>
<p class="muted">Stalls = Nagle/delayed-ACK stalls the proxy's socket timeline flagged in a run: median per run, (fewest–most).
Stalled (wall clock) = median per run of the time during which at least one connection was stalled (stalls on parallel
connections that overlap count once). The five parts (docs/timings.md) cut each matched request's browser time: queued in
the browser, the client leg to the proxy, the proxy's own time, upstream, and the way back; each is the median over the
cell's aligned runs of the run's median, so their sum is close to, not exactly, a median request's time. CPU per load
(Linux) = median per run of the time each process spent on a core from navigation to network quiet, and how long its main
thread (all of the browser's threads) waited runnable for one.</p>
${naive}
${stallChart}
${breakdownChart}`;
}

function effectsTable(result: LabResult): string {
  if (!result.effects.length) return '';
  const rows = result.effects.map((e) => {
    const c = e.comparison;
    const word = !c.significant ? 'no significant difference' : `${c.ratio < 1 ? 'faster' : 'slower'} (${c.magnitude})`;
    return `<tr><td>${esc(e.dimension)} on</td>
<td class="mono">${esc(e.cell)} vs ${esc(e.versus)}</td>
<td class="n">${ratio(c)}</td>
<td class="n">${pText(c.p)}</td>
<td>${esc(word)}</td></tr>`;
  });
  return `<h2>Effect of each setting on load time</h2><table><thead><tr><th>Setting</th>
<th>Cells</th>
<th>Ratio</th>
<th>p</th>
<th>Verdict</th></tr></thead>
<tbody>${rows.join('')}</tbody></table>`;
}

function machineTable(result: LabResult): string {
  const m = result.machine ?? ({} as Partial<LabResult['machine']>);
  const rows: Array<[string, unknown]> = [
    ['Netlens', result.tool?.version],
    ['Browser', `${m.browser?.version ?? '?'} (${m.browser?.path ?? '?'})`],
    ['Node.js', m.node],
    ['OS', `${m.platform ?? '?'} ${m.release ?? ''} ${m.arch ?? ''}`],
    ['CPU', `${m.cpus ?? '?'} × ${m.cpuModel ?? '?'}`],
    ['Memory', m.totalMemoryMB !== undefined ? `${m.totalMemoryMB} MB` : '?'],
    ['Load average at start', Array.isArray(m.loadAverage) ? m.loadAverage.join(', ') : '?'],
    ['Browser priority', `${browserPriorityText(result)} (--browser-nice)`],
  ];
  return `<table>${rows.map(([k, v]) => `<tr><th>${esc(k)}</th><td>${esc(v ?? '?')}</td></tr>`).join('')}</table>`;
}

function waterfalls(result: LabResult, hars: ReadonlyMap<CellId, WaterfallEntry[] | string>): string {
  const parts = result.cells.map((c: CellResult) => {
    const w = hars.get(c.id);
    const rep = c.representativeRun !== undefined ? c.runs[c.representativeRun] : undefined;
    const which = rep
      ? ` <span class="muted">— run ${rep.round + 1}, load ${fmtMs(rep.loadMs)} (median ${fmtMs(c.stats.loadMs?.median)})</span>`
      : '';
    const head = `<h3 class="mono">${esc(c.id)}${which}</h3>`;
    if (typeof w === 'string' || !w) return `${head}<p class="muted">${esc(w ?? 'No successful run with a browser HAR.')}</p>`;
    const more = w.length > 150 ? `<p class="muted">First 150 of ${w.length} requests.</p>` : '';
    return head + waterfallSvg(w) + more;
  });
  const legend =
    '<p class="legend muted">Segments:<span class="sc"></span>queue + connect + send<span class="sw"></span>waiting (TTFB)<span class="sr"></span>download</p>';
  return `<h2>Waterfall of each cell's median run</h2>${legend}${parts.join('\n')}`;
}

/** The report as one HTML string. `hars`: per cell, the median run's waterfall entries or why there are none. */
export function renderHtmlReport(result: LabResult, hars: ReadonlyMap<CellId, WaterfallEntry[] | string> = new Map()): string {
  const c = result.config;
  const failures = result.cells.flatMap((x) => x.runs.filter((r) => !r.ok));
  const failList = failures.length
    ? `<h2>Failed runs (${failures.length})</h2><ul>${failures
        .slice(0, 50)
        .map((r) => `<li class="mono">${esc(r.cell)} run ${r.round + 1}: [${esc(r.error?.code)}] ${esc(r.error?.message)}</li>`)
        .join('')}</ul>`
    : '';
  const noisy = result.cells.filter(isNoisy).map((x) => x.id);
  const title = `Netlens lab report — ${targetLabel(c.target)}`;
  const tooFew = minPValue(c.runs) >= c.alpha ? ' — <strong>so no difference can be significant; use more runs</strong>' : '';
  const noisyText = noisy.length
    ? `<br><strong>Noisy cells</strong> (load-time CV above 10%, their comparisons are shaky):
${noisy.map((n) => `<span class="mono">${esc(n)}</span>`).join(', ')}.`
    : '';
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${esc(title)}</title><style>${STYLE}</style></head>
<body>
<h1>${esc(title)}</h1>
<p class="muted">${esc(result.url)} · started ${esc(result.startedAt.replace('T', ' ').slice(0, 19))} UTC
· took ${esc(duration(result.durationMs))}${result.aborted ? ' · <strong>cancelled: partial results</strong>' : ''}</p>
<p>${c.runs} runs per cell in ${result.cells.length} cells, shuffled per round (seed ${esc(c.seed)});
baseline: ${esc(c.baseline === 'direct' ? 'the direct cell with the same HTTP/2 setting' : c.baseline)};
α = ${esc(c.alpha)}. With ${c.runs} runs the smallest possible p is ${pText(minPValue(c.runs))}${tooFew}.
${noisyText}</p>
<h2>Results</h2>
${resultsTable(result)}
<p class="muted">Ratio = this cell's median / its baseline's. p = two-sided Mann-Whitney U; significant when p &lt; α,
magnitude from Cliff's delta. TTFB = each run's median time to first byte.</p>
<h2>Charts</h2>
${chart(result, 'loadMs', 'Page load time — median, whiskers min…max')}
${chart(result, 'ttfbMedianMs', 'TTFB (median per run) — median, whiskers min…max')}
${stallsAndBreakdown(result)}
${effectsTable(result)}
${waterfalls(result, hars)}
${failList}
<h2>Machine and versions</h2>
${machineTable(result)}
<p class="muted">Written by Netlens ${esc(result.tool?.version ?? '')} from results.json (schemaVersion ${esc(result.schemaVersion)}).</p>
</body></html>
`;
}

/** Reads the median run's browser HAR of every cell (bounded, inside `dir`): waterfall entries or the reason there are none. */
export async function representativeWaterfalls(dir: string, result: LabResult): Promise<Map<CellId, WaterfallEntry[] | string>> {
  const out = new Map<CellId, WaterfallEntry[] | string>();
  const root = path.resolve(dir);
  for (const c of result.cells) {
    const rep = c.representativeRun !== undefined ? c.runs[c.representativeRun] : undefined;
    if (!rep?.browserHar) continue;
    const file = path.resolve(root, rep.browserHar);
    if (!file.startsWith(root + path.sep)) {
      out.set(c.id, `The HAR path ${rep.browserHar} points outside the run directory; not read.`);
      continue;
    }
    try {
      const size = (await fs.promises.stat(file)).size;
      if (size > HAR_MAX_BYTES) {
        out.set(c.id, `${rep.browserHar} is ${Math.round(size / 2 ** 20)} MB, too large to embed.`);
        continue;
      }
      out.set(c.id, waterfallEntries(JSON.parse(await fs.promises.readFile(file, 'utf8'))));
    } catch (err) {
      out.set(c.id, `${rep.browserHar} cannot be read: ${(err as Error).message}`);
    }
  }
  return out;
}

/** The report of the run in `dir` (results.json and har/). */
export async function buildHtmlReport(dir: string): Promise<{ result: LabResult; html: string }> {
  const result = await readRunDir(dir);
  return { result, html: renderHtmlReport(result, await representativeWaterfalls(dir, result)) };
}
