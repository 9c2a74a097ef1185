/**
 * Terminal output of the lab: the results table and the progress line.
 * Plain text (no colours) so it reads the same in a CI log as in a terminal.
 */
import { baselineFor } from './cells.js';
import { minPValue, NOISY_CV } from './limits.js';
import type { CellResult, LabProgress, LabResult, MetricStats } from './types.js';
import { cellVerdict, isNoisy } from './verdict.js';
import { browserPriorityText, cpuText, stallCountText } from './cell-detail.js';

const ms = (v: number | undefined) => (v === undefined || !Number.isFinite(v) ? '-' : v >= 100 ? v.toFixed(0) : v.toFixed(1));

function pValue(p: number): string {
  if (!Number.isFinite(p)) return '-';
  return p < 0.001 ? '<0.001' : p.toFixed(3);
}

function pad(cells: string[][]): string {
  const widths = cells[0].map((_, i) => Math.max(...cells.map((r) => r[i].length)));
  return cells.map((r) => r.map((c, i) => (i === 0 ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join('  ')).join('\n');
}

/** Load-time and TTFB verdicts of a cell, with its noise flag (every cell, not only baselines). */
function verdicts(c: CellResult, baseline: LabResult['config']['baseline']): [string, string] {
  const isBase = baselineFor(c.id, baseline) === undefined;
  const load = cellVerdict(c, 'loadMs', isBase).text;
  const ttfb = cellVerdict(c, 'ttfbMedianMs', isBase);
  const noisy = isNoisy(c) ? ` — NOISY: load CV ${((c.stats.loadMs?.cv ?? 0) * 100).toFixed(0)}% > ${NOISY_CV * 100}%` : '';
  return [load + noisy, ttfb.kind === 'none' || ttfb.kind === 'baseline' ? '-' : ttfb.text];
}

/** The per-cell table: load time stats, ratio to baseline, p-value, Cliff's delta, TTFB, connections. */
export function formatTable(result: LabResult): string {
  const header = [
    'cell',
    'ok',
    'load med',
    'p95',
    'min',
    'max',
    'IQR',
    'CV%',
    'ratio',
    'p',
    'δ',
    'onLoad',
    'TTFB mean',
    'TTFB med',
    'TTFB ratio',
    'TTFB p',
    'conns',
    'proto',
    'stalls',
    'verdict',
    'TTFB verdict',
  ];
  const rows = result.cells.map((c) => {
    const s: MetricStats | undefined = c.stats.loadMs;
    const cmp = c.comparisons.loadMs;
    const tcmp = c.comparisons.ttfbMedianMs;
    const okRuns = c.runs.filter((r) => r.ok);
    const conns = okRuns.map((r) => r.connections ?? 0).sort((a, b) => a - b);
    const protos = [...new Set(okRuns.flatMap((r) => Object.keys(r.protocols ?? {})))].join('/');
    return [
      c.id,
      `${okRuns.length}/${c.runs.length}`,
      ms(s?.median),
      ms(s?.p95),
      ms(s?.min),
      ms(s?.max),
      ms(s?.iqr),
      s ? (s.cv * 100).toFixed(0) : '-',
      cmp ? `${cmp.ratio.toFixed(2)}×` : '-',
      cmp ? pValue(cmp.p) : '-',
      cmp ? cmp.cliffsDelta.toFixed(2) : '-',
      ms(c.stats.onLoadMs?.median),
      ms(c.stats.ttfbMeanMs?.median),
      ms(c.stats.ttfbMedianMs?.median),
      tcmp ? `${tcmp.ratio.toFixed(2)}×` : '-',
      tcmp ? pValue(tcmp.p) : '-',
      conns.length ? String(conns[Math.floor(conns.length / 2)]) : '-',
      protos || '-',
      stallCountText(c),
      ...verdicts(c, result.config.baseline),
    ];
  });
  const t = result.config.target;
  const target =
    t.kind === 'site'
      ? `test site, ${t.images} images, latency ${t.latencyMs} ms/response, ${t.connectionLatencyMs ?? t.latencyMs} ms/connection`
      : t.url;
  const failures = result.cells.flatMap((c) => c.runs.filter((r) => !r.ok)).slice(0, 5);
  return [
    `Target: ${target} (${result.url}, ${result.expectedRequests} requests per load)`,
    `Runs: ${result.config.runs} per cell, shuffled per round (seed ${result.config.seed}); baseline: ${result.config.baseline}; α = ${result.config.alpha}` +
      (result.aborted ? ' — CANCELLED, partial results' : ''),
    `Times in ms; load = first request → last response end (browser clock); ratio/p/δ compare load time with the baseline (Mann-Whitney U, Cliff's delta);` +
      ` TTFB ratio/p compare the runs' median TTFB the same way;` +
      ` stalls = Nagle/delayed-ACK stalls the proxy's socket timeline flagged per run (median, range).` +
      ` Smallest p possible with ${result.config.runs} runs per cell: ${pValue(minPValue(result.config.runs))}.`,
    ...(result.via ?? []).map((v) => {
      const what = v.intercepts === true ? 'terminates TLS' : v.intercepts === false ? 'tunnels TLS' : 'TLS handling unknown';
      return `via-${v.name}: external proxy ${v.url} (${what}); warm: started outside the lab and reused by every run, unlike the fresh Netlens proxy per run.`;
    }),
    '',
    pad([header, ...rows]),
    ...formatCpu(result),
    ...formatEffects(result),
    ...(failures.length
      ? ['', 'Failed runs:', ...failures.map((r) => `  ${r.cell} #${r.round + 1}: [${r.error?.code}] ${r.error?.message}`)]
      : []),
  ].join('\n');
}

/** One progress line, e.g. `[#####.....] 12/50 proxy+h2+intercept round 3`. */
export function progressLine(p: LabProgress, width = 30): string {
  if (p.type === 'start') return `Lab: ${p.total} page loads over ${p.cells.length} cells — ${p.url}`;
  const done = p.completed;
  const filled = p.total ? Math.round((done / p.total) * width) : width;
  const bar = `[${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${done}/${p.total}`;
  if (p.type === 'warm-up')
    return `Warming up the proxy: unmeasured loads of the site, ${p.settings} proxy setting${p.settings === 1 ? '' : 's'}…`;
  if (p.type === 'run-start') return `${bar} ${p.cell} round ${p.round + 1}`;
  if (p.type === 'run-end') {
    const r = p.run;
    return `${bar} ${r.cell} ${r.ok ? `${ms(r.loadMs)} ms` : `FAILED [${r.error?.code}]`}`;
  }
  return `${bar} ${p.aborted ? 'cancelled' : 'done'}`;
}

/** Who used the CPU during the loads, per cell (lab/cpu-use.ts); nothing when no cell measured it. */
export function formatCpu(result: LabResult): string[] {
  const rows = result.cells.flatMap((c) => {
    const text = cpuText(c);
    return text ? [[c.id, text]] : [];
  });
  if (!rows.length) return [];
  return [
    '',
    `CPU during the page load (${browserPriorityText(result)}; median per run, the Linux scheduler's accounting; "waited" = runnable but queued for a core):`,
    ...rows.map(([id, text]) => `  ${id.padEnd(Math.max(...rows.map((r) => r[0].length)))}  ${text}`),
  ];
}

const DIMENSION_LABEL = {
  http2: 'HTTP/2 on',
  nagle: 'Nagle on',
  intercept: 'interception on',
  naive: 'naive relay on',
  proxy: 'proxy on',
  variant: 'variant on',
} as const;

/** "What each setting does": one line per pair of cells differing in one setting. */
export function formatEffects(result: LabResult): string[] {
  if (!result.effects?.length) return [];
  const rows = result.effects.map((e) => {
    const c = e.comparison;
    const word = !c.significant ? 'no significant difference' : c.ratio < 1 ? `faster (${c.magnitude})` : `slower (${c.magnitude})`;
    return [
      DIMENSION_LABEL[e.dimension] ?? String(e.dimension),
      `${e.cell} vs ${e.versus}`,
      `${c.ratio.toFixed(2)}×`,
      pValue(c.p),
      c.cliffsDelta.toFixed(2),
      word,
    ];
  });
  return [
    '',
    'Effects on load time (one setting switched on, all else equal):',
    pad([['setting', 'cells', 'ratio', 'p', 'δ', 'verdict'], ...rows]),
  ];
}
