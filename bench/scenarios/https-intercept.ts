/**
 * Intercepted HTTPS: small GETs over keep-alive through CONNECT (undici
 * ProxyAgent in its own process), at 1 and 16 connections: direct, a blind
 * tunnel (the floor for any CONNECT proxy), and the intercepting proxies.
 * CPU per request is the proxy process's user+system time over the measured
 * window (after warm-up, so TLS handshakes are not in it) divided by requests.
 */
import { scriptResult, type Child } from '../lib/child.js';
import { fmtInt, fmtRatio, fmtUs, mdTable, median } from '../lib/stats.js';
import type { PeerInfo } from '../peers/index.js';

export interface HttpsCondition {
  name: string;
  child?: Child<PeerInfo>;
}

export interface HttpsRow {
  connections: number;
  condition: string;
  rps: number;
  p50us: number;
  p99us: number;
  cpuUsPerReq: number;
  errors: number;
  ratio: number;
}

export interface ClientResult {
  requests: number;
  errors: number;
  rps: number;
  p50us: number;
  p99us: number;
  proxyCpuMs: number;
}

export function runClient(
  url: string,
  c: HttpsCondition,
  caFiles: string[],
  concurrency: number,
  durationMs: number,
): Promise<ClientResult> {
  const cfg = {
    url,
    proxy: c.child ? `http://127.0.0.1:${c.child.info.port}` : undefined,
    proxyPid: c.child?.pid,
    caFiles,
    concurrency,
    durationMs,
  };
  return scriptResult<ClientResult>('load/https-client.ts', [JSON.stringify(cfg)], 'client', durationMs + 30_000);
}

export async function httpsIntercept(
  url: string,
  conditions: HttpsCondition[],
  rounds: number,
  durationMs: number,
  log: (s: string) => void,
): Promise<HttpsRow[]> {
  const caFiles = [...new Set(conditions.flatMap((c) => (c.child?.info.caPath ? [c.child.info.caPath] : [])))];
  const samples = new Map<string, { rps: number[]; p50: number[]; p99: number[]; cpu: number[]; errors: number }>();
  const levels = [1, 16];
  for (let r = 0; r < rounds; r++) {
    for (const conc of levels) {
      // Every other round in reverse: no condition always runs right after the same other one (whose leftover
      // work, e.g. a recorder's deferred writes, would share the CPU with it).
      for (const c of r % 2 ? [...conditions].reverse() : conditions) {
        let res: ClientResult;
        try {
          res = await runClient(url, c, caFiles, conc, durationMs);
        } catch (err) {
          log(`  ${c.name} c=${conc}: ${(err as Error).message.split('\n').slice(0, 3).join(' / ')}`);
          continue;
        }
        const k = `${conc}\u0000${c.name}`;
        const s = samples.get(k) ?? { rps: [], p50: [], p99: [], cpu: [], errors: 0 };
        s.rps.push(res.rps);
        s.p50.push(res.p50us);
        s.p99.push(res.p99us);
        if (c.child && res.requests) s.cpu.push((res.proxyCpuMs * 1000) / res.requests);
        s.errors += res.errors;
        samples.set(k, s);
        log(
          `  round ${r + 1}/${rounds} HTTPS GET c=${conc} ${c.name}: ${fmtInt(res.rps)} req/s p50 ${fmtUs(res.p50us)} p99 ${fmtUs(res.p99us)}${c.child ? ` cpu/req ${fmtUs((res.proxyCpuMs * 1000) / res.requests)}` : ''}${res.errors ? ` errors ${res.errors}` : ''}`,
        );
      }
    }
  }
  const rows: HttpsRow[] = [];
  for (const conc of levels) {
    const direct = median(samples.get(`${conc}\u0000direct`)?.rps ?? []);
    for (const c of conditions) {
      const s = samples.get(`${conc}\u0000${c.name}`);
      if (!s) continue;
      const rps = median(s.rps);
      rows.push({
        connections: conc,
        condition: c.name,
        rps,
        p50us: median(s.p50),
        p99us: median(s.p99),
        cpuUsPerReq: median(s.cpu),
        errors: s.errors,
        ratio: rps / direct,
      });
    }
  }
  return rows;
}

export function httpsTable(rows: HttpsRow[]): string {
  return mdTable(
    ['c', 'condition', 'req/s', '× direct', 'p50', 'p99', 'proxy CPU/req', 'errors'],
    rows.map((r) => [
      String(r.connections),
      r.condition,
      fmtInt(r.rps),
      fmtRatio(r.ratio),
      fmtUs(r.p50us),
      fmtUs(r.p99us),
      r.condition === 'direct' ? '–' : fmtUs(r.cpuUsPerReq),
      String(r.errors),
    ]),
  );
}
