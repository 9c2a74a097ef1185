/** Medians and the small formatting helpers the tables share. */
export function median(xs: number[]): number {
  const v = xs.filter((x) => Number.isFinite(x)).sort((a, b) => a - b);
  if (!v.length) return NaN;
  const m = v.length >> 1;
  return v.length % 2 ? v[m]! : (v[m - 1]! + v[m]!) / 2;
}

export const fmtInt = (n: number) => (Number.isFinite(n) ? Math.round(n).toLocaleString('en-US') : '–');
export const fmtRatio = (n: number) => (Number.isFinite(n) ? `${n.toFixed(2)}×` : '–');
export const fmtUs = (n: number) => (Number.isFinite(n) ? (n >= 10_000 ? `${(n / 1000).toFixed(1)} ms` : `${Math.round(n)} µs`) : '–');
export const fmtMiB = (n: number) => (Number.isFinite(n) ? `${n.toFixed(1)} MiB` : '–');

/** A Markdown table; also readable as-is on a terminal. */
export function mdTable(head: string[], rows: string[][]): string {
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: string[]) => `| ${cells.map((c, i) => c.padEnd(widths[i]!)).join(' | ')} |`;
  return [line(head), `|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`, ...rows.map(line)].join('\n');
}
