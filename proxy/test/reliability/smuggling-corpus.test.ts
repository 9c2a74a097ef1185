/**
 * The request-smuggling corpus (issue 13): ≥ 150 raw-byte cases on the plain listener
 * (absolute-form) and inside an intercepted CONNECT tunnel (TLS, origin-form), each
 * also fed to Node's own http server. Asserts 0 desyncs and no hung connection; the
 * decisions that differ from Node's are written to test-results/smuggling-decisions.md.
 */
import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { nodeReference, type NodeReference } from './node-reference.js';
import { spawnProxy, type ProxyProcess } from './proxy-process.js';
import { mapLimit, runCase, type CaseResult, type RunContext } from './smuggling-run.js';
import { SMUGGLING_CASES } from './smuggling-cases.js';
import { rawOrigin } from './raw-origin.js';
import { rawExchange } from './raw-client.js';
import { proxyAnswers, targetFor } from './smuggling-run.js';

const MAX_HEADER_SIZE = 64 * 1024; // the proxy listener's default (options.ts)

let proxy: ProxyProcess;
let reference: NodeReference;
let ctx: RunContext;
const results: CaseResult[] = [];

beforeAll(async () => {
  proxy = await spawnProxy();
  reference = await nodeReference({ maxHeaderSize: MAX_HEADER_SIZE });
  const { certPem, keyPem } = proxy.ca.issue(['localhost', '127.0.0.1']);
  ctx = { proxy, reference, originTls: { cert: certPem, key: keyPem } };
}, 60_000);

afterAll(async () => {
  writeReport(results);
  await reference?.close();
  await proxy?.stop();
});

function writeReport(all: CaseResult[]): void {
  fs.mkdirSync('test-results', { recursive: true });
  const esc = (s: string) => s.replace(/\|/g, '\\|').replace(/[\x00-\x1f\x7f-\xff]/g, (c) => `\\x${c.charCodeAt(0).toString(16).padStart(2, '0')}`);
  const rows = all.filter((r) => r.proxy !== r.node || r.desyncs.length);
  const lines = ['| path | case | Node | proxy | desyncs |', '| --- | --- | --- | --- | --- |'];
  for (const r of rows) lines.push(`| ${r.path} | ${esc(r.name)} | ${esc(r.node)} | ${esc(r.proxy)} | ${esc(r.desyncs.join('; ').slice(0, 300))} |`);
  fs.writeFileSync('test-results/smuggling-decisions.md', `${lines.join('\n')}\n`);
  fs.writeFileSync('test-results/smuggling-decisions.json', JSON.stringify(all, null, 1));
}

describe('request-smuggling corpus', () => {
  it('has at least 150 cases', () => {
    expect(SMUGGLING_CASES.length).toBeGreaterThanOrEqual(150);
  });

  for (const path of ['plain', 'tunnel'] as const) {
    it(`${path}: no desync, no hung connection, the proxy stays up`, async () => {
      const got = await mapLimit(SMUGGLING_CASES, 6, (c) => runCase(ctx, c, path));
      results.push(...got);
      const bad = got.filter((r) => r.desyncs.length).map((r) => `${r.name}: ${r.desyncs.join('; ')}`);
      expect(proxy.exited(), proxy.stderr()).toBeNull();
      // A normal request still works afterwards.
      const origin = await rawOrigin(path === 'tunnel' ? { tls: ctx.originTls } : {});
      const t = targetFor(path, `127.0.0.1:${origin.port}`);
      const tunnel = path === 'tunnel' ? { host: '127.0.0.1', port: origin.port, ca: proxy.ca.certPem } : undefined;
      const ok = await rawExchange({ port: proxy.port, tunnel }, [Buffer.from(`GET ${t.url('/ok')} HTTP/1.1\r\nHost: ${t.authority}\r\n\r\n`)]);
      const { answers } = proxyAnswers(ok.bytes, origin);
      await origin.close();
      expect(answers).toEqual([{ kind: 'request', method: 'GET', path: '/ok', bodyLength: 0 }]);
      expect(bad).toEqual([]);
    }, 300_000);
  }
});
