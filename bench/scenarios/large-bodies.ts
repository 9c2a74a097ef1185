/**
 * Large bodies: one upload and one download of `bytes` with curl, direct and
 * through the proxy (plain HTTP forwarding and intercepted HTTPS), rounds
 * interleaved. While each transfer runs the proxy's RSS is polled; streaming
 * must keep it flat, so the table reports growth over the RSS before it.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Child } from '../lib/child.js';
import { fmtMiB, fmtRatio, mdTable, median } from '../lib/stats.js';
import type { PeerInfo } from '../peers/index.js';

export interface LargeRow {
  direction: 'upload' | 'download';
  scheme: 'http' | 'https';
  condition: string;
  mibPerS: number;
  seconds: number;
  ratio: number;
  /** Largest rise of the proxy's RSS during one transfer, over the rounds. */
  rssGrowthMiB: number;
  peakRssMiB: number;
  /**
   * Median over the rounds of the proxy process's CPU time (all threads, /proc/<pid>/stat) per transfer, in seconds:
   * beside a floor's, how much of a transfer's cost is the proxy's own work rather than TLS and the kernel's.
   */
  proxyCpuS?: number;
}

/** Intercepted HTTPS with curl's default (HTTP/2) client leg: the row issue 17's goal is about. */
export const INTERCEPTING = 'netlens (intercepting)';
/** The same with `curl --http1.1`. */
export const INTERCEPTING_H1 = 'netlens (intercepting, client HTTP/1.1)';
/**
 * The floor of a Node intercepting proxy (bench/peers/node-minimal-mitm.ts: node:https terminating TLS, https.request,
 * piped, nothing else) with the same HTTP/1.1 client leg: what TLS termination on both legs costs in Node on this
 * machine with nothing of ours on top (issue 17: where the remaining cost of large bodies is).
 */
export const FLOOR_H1 = 'node:https minimal MITM (client HTTP/1.1)';
/**
 * The floor for the row issue 17's goal is about (curl's default HTTP/2 client leg): node:http2 terminating TLS, each
 * stream forwarded with https.request (the origin speaks HTTP/1.1), piped (bench/peers/node-minimal-h2-mitm.ts with
 * `h1-upstream`), Netlens's receive windows.
 */
export const FLOOR_H2 = 'node:http2 minimal MITM (client HTTP/2)';

function curlTime(args: string[], timeoutS: number): Promise<number> {
  return new Promise((resolve, reject) => {
    execFile(
      'curl',
      ['-sS', '--fail', '-o', '/dev/null', '-w', '%{time_total}', '--max-time', String(timeoutS), ...args],
      (err, stdout, stderr) => (err ? reject(new Error(`curl: ${stderr || err.message}`)) : resolve(Number(stdout))),
    );
  });
}

export async function largeBodies(
  origin: { httpPort: number; httpsPort: number },
  proxy: Child<PeerInfo>,
  caPath: string,
  bytes: number,
  rounds: number,
  log: (s: string) => void,
  floor?: Child<PeerInfo>,
  floorH2?: Child<PeerInfo>,
): Promise<LargeRow[]> {
  const file = path.join(os.tmpdir(), `netlens-bench-upload-${process.pid}.bin`);
  fs.writeFileSync(file, Buffer.alloc(0));
  const chunk = Buffer.alloc(1 << 20, 0x62);
  const fd = fs.openSync(file, 'w');
  for (let i = 0; i < bytes / chunk.length; i++) fs.writeSync(fd, chunk);
  fs.closeSync(fd);
  const samples = new Map<string, { s: number[]; growth: number[]; peak: number[]; cpu: number[] }>();
  try {
    for (let r = 0; r < rounds; r++) {
      for (const direction of ['upload', 'download'] as const) {
        for (const scheme of ['http', 'https'] as const) {
          // Intercepted HTTPS twice: curl's default HTTP/2 client leg, and HTTP/1.1 (the origin, and so the direct
          // transfer, speaks HTTP/1.1 only): what the HTTP/2 leg costs is the difference.
          // The floors, when given: node:https with the HTTP/1.1 leg (it speaks nothing else), node:http2 with curl's
          // default HTTP/2 leg.
          const legs =
            scheme === 'https' ? [undefined, 'h2', 'h1', ...(floor ? ['floor'] : []), ...(floorH2 ? ['floor-h2'] : [])] : [undefined, 'h1'];
          for (const leg of legs) {
            const via = leg === 'floor' ? floor : leg === 'floor-h2' ? floorH2 : leg ? proxy : undefined;
            const base = scheme === 'http' ? `http://127.0.0.1:${origin.httpPort}` : `https://localhost:${origin.httpsPort}`;
            const args = direction === 'upload' ? ['-X', 'POST', '-T', file, `${base}/upload`] : [`${base}/download?bytes=${bytes}`];
            if (scheme === 'https') args.push('--cacert', caPath);
            if (via) args.push('-x', `http://127.0.0.1:${via.info.port}`);
            if (scheme === 'https' && (leg === 'h1' || leg === 'floor')) args.push('--http1.1');
            const before = via?.memory().rssMiB ?? 0;
            const cpuBefore = via?.cpuMs();
            let peak = before;
            const poll = via
              ? setInterval(() => {
                  try {
                    peak = Math.max(peak, via.memory().rssMiB);
                  } catch {
                    /* exited */
                  }
                }, 20)
              : undefined;
            let seconds: number;
            try {
              seconds = await curlTime(args, 300);
            } catch (err) {
              log(
                `  ${direction} ${scheme} ${leg?.startsWith('floor') ? leg : via ? 'netlens' : 'direct'}: ${(err as Error).message.trim()}`,
              );
              continue;
            } finally {
              if (poll) clearInterval(poll);
            }
            const condition = !via
              ? 'direct'
              : scheme === 'http'
                ? 'netlens (forwarding)'
                : leg === 'floor'
                  ? FLOOR_H1
                  : leg === 'floor-h2'
                    ? FLOOR_H2
                    : leg === 'h2'
                      ? INTERCEPTING
                      : INTERCEPTING_H1;
            const k = `${direction} ${scheme} ${condition}`;
            const s = samples.get(k) ?? { s: [], growth: [], peak: [], cpu: [] };
            s.s.push(seconds);
            if (via) {
              s.growth.push(peak - before);
              s.peak.push(peak);
              if (cpuBefore !== undefined) s.cpu.push((via.cpuMs() - cpuBefore) / 1000);
            }
            samples.set(k, s);
            log(
              `  round ${r + 1}/${rounds} ${direction} ${scheme} ${condition}: ${(bytes / 2 ** 20 / seconds).toFixed(0)} MiB/s${via ? `, RSS ${before.toFixed(0)} → peak ${peak.toFixed(0)} MiB` : ''}`,
            );
          }
        }
      }
    }
  } finally {
    fs.rmSync(file, { force: true });
  }
  const rows: LargeRow[] = [];
  for (const direction of ['upload', 'download'] as const) {
    for (const scheme of ['http', 'https'] as const) {
      const directS = median(samples.get(`${direction} ${scheme} direct`)?.s ?? []);
      for (const condition of scheme === 'https'
        ? ['direct', INTERCEPTING, FLOOR_H2, INTERCEPTING_H1, FLOOR_H1]
        : ['direct', 'netlens (forwarding)']) {
        const s = samples.get(`${direction} ${scheme} ${condition}`);
        if (!s) continue;
        const seconds = median(s.s);
        rows.push({
          direction,
          scheme,
          condition,
          seconds,
          mibPerS: bytes / 2 ** 20 / seconds,
          ratio: directS / seconds,
          rssGrowthMiB: Math.max(...s.growth),
          peakRssMiB: Math.max(...s.peak),
          ...(s.cpu.length ? { proxyCpuS: median(s.cpu) } : {}),
        });
      }
    }
  }
  return rows;
}

export function largeTable(rows: LargeRow[], bytes: number): string {
  return mdTable(
    [
      'transfer',
      'scheme',
      'condition',
      'time',
      'MiB/s',
      '× direct',
      'proxy CPU per transfer',
      'proxy RSS growth (max over rounds)',
      'proxy peak RSS',
    ],
    rows.map((r) => [
      `${r.direction} ${bytes / 2 ** 20} MiB`,
      r.scheme,
      r.condition,
      `${r.seconds.toFixed(2)} s`,
      r.mibPerS.toFixed(0),
      fmtRatio(r.ratio),
      r.proxyCpuS === undefined ? '–' : `${r.proxyCpuS.toFixed(2)} s`,
      r.condition === 'direct' ? '–' : fmtMiB(r.rssGrowthMiB),
      r.condition === 'direct' ? '–' : fmtMiB(r.peakRssMiB),
    ]),
  );
}
