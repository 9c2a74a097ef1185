/**
 * The HTTP/2 floor in the page load: the minimal node:http2 MITM (bench/peers/node-minimal-h2-mitm.ts) run as a lab
 * external proxy. Its TTFB ratio to direct, in the same run, is the part of Netlens's HTTP/2 TTFB gap that Node's http2
 * and TLS termination on one thread cost with nothing of ours on top (issue 17: "the measurement that locates the
 * remaining cost below our code").
 */
import { mannWhitneyU } from '../../proxy/src/lab/stats.js';
import { fmtRatio } from '../lib/stats.js';
import type { PageResult } from '../scenarios/page-load.js';

/** The floor's name as a lab external proxy (`--via NAME=URL`; cells `via-<NAME>+h2|h1`). */
export const FLOOR_VIA = 'node-h2-floor';
export const FLOOR_NAME = 'node:http2 minimal MITM';

/**
 * What to add to a TTFB goal that is not met: the floor's own TTFB against direct (HTTP/2) and how much of Netlens's
 * ratio that accounts for. `netlensRatio` is Netlens's intercepting TTFB over direct. Empty when the floor did not run.
 */
export function floorTtfbText(page: PageResult, netlensRatio: number): string {
  const floor = page.cells.find((c) => c.cell === `via-${FLOOR_VIA}+h2`);
  if (!floor) return '';
  const direct = page.cells.find((c) => c.cell === 'direct+h2' && c.ok > 0);
  if (floor.ok === 0 || !direct || !(direct.ttfbMs > 0) || !Number.isFinite(floor.ttfbMs)) {
    return `; floor (${FLOOR_NAME}) did not load the page in this run`;
  }
  const ratio = floor.ttfbMs / direct.ttfbMs;
  const head = `; floor (${FLOOR_NAME}, same run) ${fmtRatio(ratio)} direct (${floor.ttfbMs.toFixed(1)} ms)`;
  const icpt = page.cells.find((c) => c.cell === 'proxy+h2+intercept');
  const test = versusFloor(icpt?.ttfbs, floor.ttfbs);
  if (ratio >= netlensRatio) return `${head}: all of the ${fmtRatio(netlensRatio)} is below our code${test}`;
  const ours = fmtRatio(netlensRatio / ratio);
  return `${head}: ${fmtRatio(ratio)} of the ${fmtRatio(netlensRatio)} is below our code, Netlens ${ours} the floor${test}`;
}

/**
 * Netlens's intercepting cell against the floor's, run by run (Mann-Whitney U, two-sided): whether the difference
 * between them, the part that is ours, is more than the runs' noise. Empty without the runs of both.
 */
function versusFloor(netlens: readonly number[] | undefined, floor: readonly number[] | undefined): string {
  if (!netlens?.length || !floor?.length) return '';
  const { p } = mannWhitneyU(netlens, floor);
  if (!Number.isFinite(p)) return '';
  return ` (Netlens against the floor p = ${p.toFixed(2)}: ${p < 0.05 ? 'a significant difference' : 'not a significant difference'})`;
}

/**
 * What to add to a page-load goal that is not met (interception over the blind tunnel, `netlensRatio`): the floor's
 * page load through its own proxy against the same tunnel, and how much more the intercepting proxy's main thread ran
 * per load than the tunnel's (the lab's CPU accounting), and the floor's main thread the same way: when the extra load
 * time is about that CPU, the proxy's work sits on the page's critical path, and the floor's share of it is what a
 * minimal Node MITM spends too. Empty when neither was measured.
 */
export function floorLoadText(page: PageResult, proto: 'h1' | 'h2', netlensRatio: number): string {
  const cell = (id: string) => page.cells.find((c) => c.cell === id && c.ok > 0);
  const tunnel = cell(`proxy+${proto}+tunnel`);
  const icpt = cell(`proxy+${proto}+intercept`);
  if (!tunnel || !icpt) return '';
  let out = '';
  const floor = page.cells.find((c) => c.cell === `via-${FLOOR_VIA}+${proto}`);
  const floorCpu = floor && floor.ok > 0 ? floor.proxyCpuMs : undefined;
  if (floor && floor.ok > 0 && floor.loadMs > 0) {
    const ratio = floor.loadMs / tunnel.loadMs;
    out += `; floor (${FLOOR_NAME}, same run) ${fmtRatio(ratio)} the tunnel (${floor.loadMs.toFixed(0)} ms)`;
    if (ratio >= netlensRatio) out += ': all of it below our code';
    out += versusFloor(icpt.loads, floor.loads);
  }
  if (icpt.proxyCpuMs !== undefined && tunnel.proxyCpuMs !== undefined) {
    const extraCpu = icpt.proxyCpuMs - tunnel.proxyCpuMs;
    const extraLoad = icpt.loadMs - tunnel.loadMs;
    out += `; +${extraLoad.toFixed(0)} ms of load against +${extraCpu.toFixed(0)} ms on a core for the proxy's main thread per load`;
    // The floor's process is found by its port (lab/listener-pids.ts): what a minimal MITM's event loop spends on the same page.
    if (floorCpu !== undefined) {
      const floorExtra = floorCpu - tunnel.proxyCpuMs;
      const share = extraCpu > 0 && floorExtra > 0 ? `, ${Math.round((100 * floorExtra) / extraCpu)}% of Netlens's` : '';
      out += ` (the floor's: ${floorExtra >= 0 ? '+' : ''}${floorExtra.toFixed(0)} ms over the tunnel's${share})`;
    }
  }
  return out;
}
