/**
 * Page load through the lab (its own process): headless Chromium from the
 * lab's launcher, the lab's test site (200 images, 10 ms added latency), cells
 * direct / blind tunnel / Netlens intercepting, HTTP/1.1 and HTTP/2, a fresh
 * browser (and proxy) per run. The lab runs the proxy in this process and
 * records it (proxy-side HAR), as the app does. argv: <dataDir> <runs> <images>
 * Prints `RESULT {json}`: median load time and ratio to direct per cell.
 */
import { runLab, type CellId } from '../../proxy/src/lab/index.js';

const [dataDir, runs, images] = process.argv.slice(2);
const cells: CellId[] = ['direct+h1', 'proxy+h1+tunnel', 'proxy+h1+intercept', 'direct+h2', 'proxy+h2+tunnel', 'proxy+h2+intercept'];
const result = await runLab({ target: { kind: 'site', images: Number(images), latencyMs: 10 }, cells, runs: Number(runs), dataDir }, {
  onProgress: (p) => {
    if (p.type === 'run-end') process.stderr.write(`  page load ${p.run.cell} round ${p.run.round + 1}: ${p.run.ok ? `${Math.round(p.run.loadMs ?? NaN)} ms` : `failed (${p.run.error?.message})`}\n`);
  },
});
const out = result.cells.map((c) => ({
  cell: c.id,
  ok: c.runs.filter((r) => r.ok).length,
  runs: c.runs.length,
  loadMs: c.stats.loadMs?.median ?? NaN,
  ttfbMs: c.stats.ttfbMedianMs?.median ?? NaN,
  ratio: c.comparisons.loadMs?.ratio ?? (c.id.startsWith('direct') ? 1 : NaN),
  p: c.comparisons.loadMs?.p ?? NaN,
}));
process.stdout.write(`RESULT ${JSON.stringify({ browser: result.machine.browser.version, cells: out })}\n`);
process.exit(0);
