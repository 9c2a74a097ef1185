/**
 * Inline SVG for the HTML report: bar charts with min…max whiskers and the
 * waterfall of one run. Plain markup, no script, no external reference, so the
 * report opens offline anywhere (mail attachment, ticket) and prints.
 */

export const esc = (s: unknown): string =>
  String(s).replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

const num = (v: number) => (Number.isFinite(v) ? (Math.round(v * 10) / 10).toString() : '0');
export const fmtMs = (v: number | undefined): string => {
  if (v === undefined || !Number.isFinite(v)) return '–';
  return v >= 100 ? `${v.toFixed(0)} ms` : `${v.toFixed(1)} ms`;
};

export interface BarDatum {
  label: string;
  median: number;
  min: number;
  max: number;
  /** Drawn in the warning colour (a noisy cell). */
  warn?: boolean;
  /** Striped, with `tag` after its value: a cell the reader must tell apart (the naive-relay cells). */
  striped?: boolean;
  tag?: string;
}

/**
 * White diagonal stripes over the bar `x0..x1` × `y..y+h`, as plain lines cut to the bar (an SVG
 * pattern would need `url(#…)`, which the report keeps out so nothing in it looks like a reference).
 */
export function stripes(x0: number, x1: number, y: number, h: number, step = 6): string {
  const out: string[] = [];
  for (let a = x0 - h; a < x1; a += step) {
    // The line from (a, y+h) up to (a+h, y), cut to x0..x1.
    const from = Math.max(a, x0);
    const to = Math.min(a + h, x1);
    if (to <= from) continue;
    out.push(`<line x1="${num(from)}" y1="${num(y + h - (from - a))}" x2="${num(to)}" y2="${num(y + h - (to - a))}"/>`);
  }
  return out.length ? `<g class="stripe" stroke="#fff" stroke-width="1.5">${out.join('')}</g>` : '';
}

/** Horizontal bars (median) with a min…max whisker, one row per cell; `format` writes the values (ms by default). */
export function barChart(title: string, data: readonly BarDatum[], format: (v: number | undefined) => string = fmtMs): string {
  const rowH = 26;
  const left = 200;
  const width = 760;
  const plot = width - left - (data.some((d) => d.tag) ? 170 : 90);
  const top = 28;
  const height = top + data.length * rowH + 24;
  const max = Math.max(1, ...data.map((d) => d.max));
  const x = (v: number) => left + (Math.max(0, v) / max) * plot;
  const rows = data.map((d, i) => {
    const y = top + i * rowH;
    const fill = d.warn ? '#e0a030' : '#1a73e8';
    return [
      `<text x="${left - 8}" y="${y + 17}" text-anchor="end" class="lbl">${esc(d.label)}</text>`,
      `<rect x="${left}" y="${y + 5}" width="${num(x(d.median) - left)}" height="16" fill="${fill}">` +
        `<title>${esc(`${d.label}: median ${format(d.median)}, min ${format(d.min)}, max ${format(d.max)}`)}</title></rect>`,
      d.striped ? stripes(left, x(d.median), y + 5, 16) : '',
      `<line x1="${num(x(d.min))}" x2="${num(x(d.max))}" y1="${y + 13}" y2="${y + 13}" stroke="#202124" stroke-width="1.5"/>`,
      `<line x1="${num(x(d.min))}" x2="${num(x(d.min))}" y1="${y + 8}" y2="${y + 18}" stroke="#202124"/>`,
      `<line x1="${num(x(d.max))}" x2="${num(x(d.max))}" y1="${y + 8}" y2="${y + 18}" stroke="#202124"/>`,
      `<text x="${num(x(d.max) + 6)}" y="${y + 17}" class="val">${esc(format(d.median))}` +
        (d.tag ? `<tspan class="tag-naive"> · ${esc(d.tag)}</tspan>` : '') +
        '</text>',
    ].join('');
  });
  const ticks = [0, 0.25, 0.5, 0.75, 1].map((f) => {
    const v = max * f;
    return (
      `<line x1="${num(x(v))}" x2="${num(x(v))}" y1="${top}" y2="${height - 20}" stroke="#e0e0e0"/>` +
      `<text x="${num(x(v))}" y="${height - 6}" text-anchor="middle" class="tick">${esc(format(v))}</text>`
    );
  });
  return (
    `<svg class="chart" role="img" aria-label="${esc(title)}" viewBox="0 0 ${width} ${height}" width="${width}" height="${height}">` +
    `<text x="0" y="16" class="ttl">${esc(title)}</text>${ticks.join('')}${rows.join('')}</svg>`
  );
}

export interface StackedRow {
  label: string;
  /** The segments in order, left to right; absent: `missing` is written in the row instead. */
  parts?: ReadonlyArray<{ label: string; value: number; color: string }>;
  missing?: string;
  striped?: boolean;
  tag?: string;
}

/** Horizontal stacked bars, one row per cell, a legend of the segments on top; rows without parts say why. */
export function stackedBarChart(
  title: string,
  legend: ReadonlyArray<{ label: string; color: string }>,
  data: readonly StackedRow[],
  legendNote?: string,
): string {
  const rowH = 26;
  const left = 200;
  const width = 760;
  const plot = width - left - (data.some((d) => d.tag) ? 170 : 90);
  const top = 48;
  const height = top + data.length * rowH + 24;
  const totals = data.map((d) => (d.parts ?? []).reduce((n, p) => n + Math.max(0, p.value), 0));
  const max = Math.max(1, ...totals);
  const x = (v: number) => left + (Math.max(0, v) / max) * plot;
  let lx = 0;
  const keys = legend.map((l) => {
    const item = `<rect x="${lx}" y="24" width="10" height="10" fill="${l.color}"/><text x="${lx + 14}" y="33">${esc(l.label)}</text>`;
    lx += 24 + l.label.length * 6;
    return item;
  });
  if (legendNote) keys.push(`<text x="${lx}" y="33" class="tick">${esc(legendNote)}</text>`);
  const rows = data.map((d, i) => {
    const y = top + i * rowH;
    const label = `<text x="${left - 8}" y="${y + 17}" text-anchor="end" class="lbl">${esc(d.label)}</text>`;
    if (!d.parts) return `${label}<text x="${left}" y="${y + 17}" class="missing">${esc(d.missing ?? 'No data.')}</text>`;
    let at = 0;
    const segs = d.parts.map((p) => {
      const from = x(at);
      at += Math.max(0, p.value);
      const w = x(at) - from;
      if (w <= 0) return '';
      return (
        `<rect x="${num(from)}" y="${y + 5}" width="${num(w)}" height="16" fill="${p.color}">` +
        `<title>${esc(`${d.label}: ${p.label} ${fmtMs(p.value)}`)}</title></rect>`
      );
    });
    const tag = d.tag ? `<tspan class="tag-naive"> · ${esc(d.tag)}</tspan>` : '';
    return (
      label +
      segs.join('') +
      (d.striped ? stripes(left, x(totals[i]), y + 5, 16) : '') +
      `<text x="${num(x(totals[i]) + 6)}" y="${y + 17}" class="val">${esc(fmtMs(totals[i]))}${tag}</text>`
    );
  });
  const ticks = [0, 0.25, 0.5, 0.75, 1].map((f) => {
    const v = max * f;
    return (
      `<line x1="${num(x(v))}" x2="${num(x(v))}" y1="${top}" y2="${height - 20}" stroke="#e0e0e0"/>` +
      `<text x="${num(x(v))}" y="${height - 6}" text-anchor="middle" class="tick">${esc(fmtMs(v))}</text>`
    );
  });
  return (
    `<svg class="chart stacked" role="img" aria-label="${esc(title)}" viewBox="0 0 ${width} ${height}" width="${width}" height="${height}">` +
    `<text x="0" y="16" class="ttl">${esc(title)}</text><g class="legend-keys">${keys.join('')}</g>${ticks.join('')}${rows.join('')}</svg>`
  );
}

/** What the waterfall needs of a HAR entry. */
export interface WaterfallEntry {
  url: string;
  status: number;
  /** ms since the first request. */
  start: number;
  /** Blocked/DNS/connect/SSL before sending, waiting (TTFB), receiving; ms, ≥ 0. */
  connect: number;
  wait: number;
  receive: number;
  total: number;
}

const pos = (v: unknown) => (typeof v === 'number' && Number.isFinite(v) && v > 0 ? v : 0);

/** Browser HAR → waterfall entries, sorted by start. Tolerates missing fields. */
export function waterfallEntries(har: unknown): WaterfallEntry[] {
  const entries = (har as { log?: { entries?: unknown } })?.log?.entries;
  if (!Array.isArray(entries)) return [];
  const rows = entries.flatMap((e) => {
    const t = Date.parse(e?.startedDateTime);
    if (!Number.isFinite(t)) return [];
    const tm = e?.timings ?? {};
    const connect = pos(tm.blocked) + pos(tm.dns) + pos(tm.connect) + pos(tm.send);
    const url = String(e?.request?.url ?? '');
    return [
      { url, status: Number(e?.response?.status) || 0, t, connect, wait: pos(tm.wait), receive: pos(tm.receive), total: pos(e?.time) },
    ];
  });
  const t0 = Math.min(...rows.map((r) => r.t));
  return rows
    .map(({ t, ...r }) => ({ ...r, start: t - t0, total: Math.max(r.total, r.connect + r.wait + r.receive) }))
    .sort((a, b) => a.start - b.start);
}

/** One run's waterfall: a row per request (at most `maxRows`), connect / TTFB / download segments. */
export function waterfallSvg(entries: readonly WaterfallEntry[], maxRows = 150): string {
  const shown = entries.slice(0, maxRows);
  const rowH = 12;
  const left = 260;
  const width = 760;
  const plot = width - left - 10;
  const top = 4;
  const height = top + shown.length * rowH + 20;
  const end = Math.max(1, ...entries.map((e) => e.start + e.total));
  const x = (v: number) => left + (v / end) * plot;
  const rows = shown.map((e, i) => {
    const y = top + i * rowH;
    let name = e.url.replace(/^https?:\/\/[^/]+/, '') || e.url;
    if (name.length > 42) name = `…${name.slice(-41)}`;
    const seg = (from: number, len: number, cls: string) =>
      len > 0
        ? `<rect x="${num(x(from))}" y="${y + 2}" width="${num(Math.max(0.5, x(from + len) - x(from)))}" height="8" class="${cls}"/>`
        : '';
    const tip =
      `${e.url} — ${e.status || 'failed'}, start ${fmtMs(e.start)}, connect ${fmtMs(e.connect)}, ` +
      `TTFB ${fmtMs(e.wait)}, download ${fmtMs(e.receive)}`;
    const bad = e.status >= 400 || e.status === 0 ? ' bad' : '';
    return (
      `<g><title>${esc(tip)}</title><text x="${left - 6}" y="${y + 10}" text-anchor="end" class="wfn${bad}">${esc(name)}</text>` +
      seg(e.start, e.connect, 'sc') +
      seg(e.start + e.connect, e.wait, 'sw') +
      seg(e.start + e.connect + e.wait, e.receive, 'sr') +
      '</g>'
    );
  });
  // The last label ends at the right edge instead of centring on it (it would be cut off).
  const axis = [0, 0.25, 0.5, 0.75, 1].map(
    (f) =>
      `<text x="${num(x(end * f))}" y="${height - 4}" text-anchor="${f === 1 ? 'end' : 'middle'}" class="tick">${esc(fmtMs(end * f))}</text>`,
  );
  return (
    `<svg class="wf" role="img" aria-label="waterfall" viewBox="0 0 ${width} ${height}" width="${width}" height="${height}">` +
    rows.join('') +
    axis.join('') +
    '</svg>'
  );
}
