/**
 * The request-smuggling corpus (issue 13): ≥ 150 raw-byte cases on the plain listener
 * (absolute-form) and inside an intercepted CONNECT tunnel (TLS, origin-form), each
 * also fed to Node's own http server with the listener's options. Asserts 0 desyncs,
 * no hung connection, the proxy alive and still serving, and that every decision that
 * differs from Node's is listed with its reason in smuggling-differences.ts. The table
 * goes to test-results/smuggling-decisions.md.
 */
import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { nodeReference, type NodeReference } from './node-reference.js';
import { spawnProxy, type ProxyProcess } from './proxy-process.js';
import { rawExchange, type Path } from './raw-client.js';
import { rawOrigin } from './raw-origin.js';
import { SMUGGLING_CASES } from './smuggling-cases.js';
import { differenceFor } from './smuggling-differences.js';
import { H2_CASES } from './h2-cases.js';
import { h2Reference, runH2Case, type H2Reference } from './h2-run.js';
import { mapLimit, proxyAnswers, runCase, targetFor, type CaseResult, type RunContext } from './smuggling-run.js';

const MAX_HEADER_SIZE = 64 * 1024; // the proxy listener's default (options.ts)

let proxy: ProxyProcess;
let reference: NodeReference;
let ctx: RunContext;
let h2ref: H2Reference;
const results: CaseResult[] = [];

beforeAll(async () => {
  proxy = await spawnProxy();
  reference = await nodeReference({ maxHeaderSize: MAX_HEADER_SIZE });
  h2ref = await h2Reference();
  const { certPem, keyPem } = proxy.ca.issue(['localhost', '127.0.0.1']);
  ctx = { proxy, reference, originTls: { cert: certPem, key: keyPem } };
}, 60_000);

afterAll(async () => {
  writeReport(results);
  await reference?.close();
  await h2ref?.close();
  await proxy?.stop();
});

const esc = (s: string) =>
  s.replace(/\|/g, '\\|').replace(/[\x00-\x1f\x7f]/g, (c) => `\\x${c.charCodeAt(0).toString(16).padStart(2, '0')}`);

function writeReport(all: CaseResult[]): void {
  fs.mkdirSync('test-results', { recursive: true });
  const lines = ['| path | case | Node | Netlens | why |', '| --- | --- | --- | --- | --- |'];
  for (const r of all.filter((r) => r.proxy !== r.node || r.desyncs.length)) {
    const d = differenceFor(r.name, r.path);
    const why = d ? d.why : r.desyncs.length ? `DESYNC: ${r.desyncs.join('; ')}` : 'UNEXPLAINED';
    lines.push(`| ${r.path} | ${esc(r.name)} | ${esc(r.node)} | ${esc(r.proxy)} | ${esc(why).slice(0, 400)} |`);
  }
  fs.writeFileSync('test-results/smuggling-decisions.md', `${lines.join('\n')}\n`);
  fs.writeFileSync('test-results/smuggling-decisions.json', JSON.stringify(all, null, 1));
}

/** A plain GET through the proxy on `path` still reaches a fresh origin and comes back. */
async function normalRequestWorks(path: Path): Promise<boolean> {
  const origin = await rawOrigin(path === 'tunnel' ? { tls: ctx.originTls } : {});
  try {
    const t = targetFor(path, `127.0.0.1:${origin.port}`);
    const tunnel = path === 'tunnel' ? { host: '127.0.0.1', port: origin.port, ca: proxy.ca.certPem } : undefined;
    const out = await rawExchange({ port: proxy.port, tunnel }, [
      Buffer.from(`GET ${t.url('/ok')} HTTP/1.1\r\nHost: ${t.authority}\r\n\r\n`),
    ]);
    const { answers } = proxyAnswers(out.bytes, origin);
    return answers.length === 1 && answers[0]!.kind === 'request' && answers[0]!.path === '/ok';
  } finally {
    await origin.close();
  }
}

/** Fails on desyncs and on differences from Node that smuggling-differences.ts does not explain. */
function judge(path: string, got: CaseResult[]): void {
  const unexplained: string[] = [];
  const desyncs: string[] = [];
  for (const r of got) {
    const d = differenceFor(r.name, r.path);
    if (r.desyncs.length) desyncs.push(`${r.name}: ${r.desyncs.join('; ')}`);
    if (r.proxy !== r.node && !d) unexplained.push(`${r.name}: Node ${r.node}; Netlens ${r.proxy}`);
    if (d && r.proxy === r.node) console.log(`[${path}] "${r.name}" no longer differs from Node: update smuggling-differences.ts`);
  }
  expect(desyncs).toEqual([]);
  expect(unexplained).toEqual([]);
}

describe('request-smuggling corpus', () => {
  it('has at least 150 cases', () => {
    expect(SMUGGLING_CASES.length).toBeGreaterThanOrEqual(150);
  });

  for (const path of ['plain', 'tunnel'] as const) {
    it(`${path}: no desync, no hung connection, the proxy stays up, differences from Node explained`, async () => {
      const got = await mapLimit(SMUGGLING_CASES, 6, (c) => runCase(ctx, c, path));
      results.push(...got);
      expect(proxy.exited(), proxy.stderr()).toBeNull();
      expect(await normalRequestWorks(path)).toBe(true);
      judge(path, got);
    }, 300_000);
  }

  it('h2 inside an intercepted tunnel, translated to HTTP/1.1: no desync, differences from Node explained', async () => {
    const got = await mapLimit(H2_CASES, 6, (c) => runH2Case(ctx, h2ref, c));
    results.push(...got);
    expect(proxy.exited(), proxy.stderr()).toBeNull();
    expect(await normalRequestWorks('tunnel')).toBe(true);
    judge('h2', got);
  }, 300_000);
});
