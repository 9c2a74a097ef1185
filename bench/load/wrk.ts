/**
 * Runs wrk against an origin directly or through a proxy. Through a proxy, a
 * Lua script sets wrk.path to the absolute-form URL and Host to the origin, so
 * wrk speaks to the proxy as an explicit HTTP proxy (RFC 9112 §3.2.2).
 * Percentiles come from wrk's own HdrHistogram in the done() hook.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

export interface WrkRun {
  rps: number;
  p50us: number;
  p99us: number;
  requests: number;
  errors: number;
}

export interface WrkOptions {
  originPort: number;
  proxyPort?: number;
  method: 'GET' | 'POST';
  path: string;
  body?: string;
  connections: number;
  durationS: number;
}

function script(o: WrkOptions): string {
  const originHost = `127.0.0.1:${o.originPort}`;
  const lines = [
    `wrk.method = "${o.method}"`,
    `wrk.path = "${o.proxyPort ? `http://${originHost}${o.path}` : o.path}"`,
    `wrk.headers["Host"] = "${originHost}"`,
  ];
  if (o.body !== undefined) {
    // A Lua long bracket string: the body may hold quotes.
    lines.push(`wrk.body = [==[${o.body}]==]`, `wrk.headers["Content-Type"] = "application/json"`);
  }
  lines.push(
    'done = function(summary, latency, requests)',
    '  local e = summary.errors',
    '  io.write(string.format("RESULT %d %d %d %d %d\\n", summary.requests, summary.duration, latency:percentile(50), latency:percentile(99), e.connect + e.read + e.write + e.timeout + e.status))',
    'end',
  );
  return lines.join('\n') + '\n';
}

export async function runWrk(o: WrkOptions): Promise<WrkRun> {
  const file = path.join(os.tmpdir(), `netlens-bench-${process.pid}.lua`);
  fs.writeFileSync(file, script(o));
  const target = `http://127.0.0.1:${o.proxyPort ?? o.originPort}/`;
  // One wrk thread: it is far cheaper per request than any Node proxy and leaves the second core to the server.
  const args = ['-t1', `-c${o.connections}`, `-d${o.durationS}s`, '--timeout', '2s', '-s', file, target];
  const out = await new Promise<string>((resolve, reject) => {
    execFile('wrk', args, { timeout: (o.durationS + 15) * 1000 }, (err, stdout, stderr) =>
      err ? reject(new Error(`wrk failed: ${err.message} ${stderr}`)) : resolve(stdout),
    );
  }).finally(() => fs.rmSync(file, { force: true }));
  const m = out.match(/^RESULT (\d+) (\d+) (\d+) (\d+) (\d+)$/m);
  if (!m) throw new Error(`wrk: no result in output:\n${out}`);
  const [requests, durationUs, p50, p99, errors] = m.slice(1).map(Number) as [number, number, number, number, number];
  return { rps: requests / (durationUs / 1e6), p50us: p50, p99us: p99, requests, errors };
}
