/**
 * Property-based fuzz of the UI server (`netlens serve`), run as a child
 * process so that a crash shows as a crash. Each case writes raw bytes (a
 * malformed request, an authorized API call with a random JSON body, a
 * WebSocket upgrade with or without the token), then FIN; after each case:
 *  - the process is alive,
 *  - the server closed the connection within 5 s of our FIN (no hung socket),
 *  - no answer is a 500 (a handler threw: a bug even when nothing crashed),
 *  - an ordinary authorized command still works.
 * At the end the child's file descriptors are back to their baseline.
 *
 *   npm test: seed 42, 2,000 cases.  More: NETLENS_FUZZ_RUNS=10000 npx vitest run proxy/test/reliability/ui-server-fuzz.test.ts
 *   Another seed: NETLENS_FUZZ_SEED=7.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import fs from 'node:fs';
import { startServeChild, type ServeChild } from './ui-serve-child.js';
import { rawExchange, type RawOutcome } from './ui-raw-exchange.js';
import { uiRequest } from './ui-fuzz-requests.js';

const RUNS = Number(process.env.NETLENS_FUZZ_RUNS ?? 2_000);
const SEED = Number(process.env.NETLENS_FUZZ_SEED ?? 42);
/** The bound: a connection still open 5 s after the client's FIN is hung. */
const FIN_GRACE_MS = 5_000;

let serve: ServeChild;

beforeAll(async () => {
  serve = await startServeChild();
}, 60_000);

afterAll(async () => {
  await serve?.stop();
});

async function settledFds(limit: number): Promise<number | undefined> {
  const deadline = Date.now() + 10_000;
  let n = serve.fds();
  while (n !== undefined && n > limit && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 200));
    n = serve.fds();
  }
  return n;
}

describe('netlens serve: requests that used to crash it (issue 13)', () => {
  const raw = (s: string) =>
    rawExchange(serve.port, Buffer.from(s.replace(/HOST/g, `127.0.0.1:${serve.port}`).replace(/TOKEN/g, serve.token), 'latin1'));
  const upgrade =
    'Connection: Upgrade\r\nUpgrade: websocket\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n';

  it.each([
    ['GET // HTTP/1.1\r\nHost: HOST\r\n\r\n', 404],
    ['GET /\\ HTTP/1.1\r\nHost: HOST\r\n\r\n', 400],
    ['GET http://[ HTTP/1.1\r\nHost: HOST\r\n\r\n', 400],
    [`GET // HTTP/1.1\r\nHost: HOST\r\n${upgrade}\r\n`, 404],
    [`GET http://[ HTTP/1.1\r\nHost: HOST\r\n${upgrade}\r\n`, 400],
    ['GET /%E0%A4%A?token=TOKEN HTTP/1.1\r\nHost: HOST\r\n\r\n', 400],
    ['GET /assets/%ZZ HTTP/1.1\r\nHost: HOST\r\n\r\n', 400],
  ])('%j → %i, and the process stays up', async (request, status) => {
    const out = await raw(request);
    expect(out.status).toBe(status);
    expect(out.closed).toBe(true);
    expect(serve.running(), serve.output()).toBe(true);
    expect((await serve.call('getStatus')).status).toBe(200);
  });

  it('imports a HAR with a 10 MiB URL (the URI-format regex overflowed the stack: 500)', async () => {
    const har = JSON.parse(fs.readFileSync(new URL('../../../e2e/fixtures/chrome.har', import.meta.url), 'utf8'));
    har.log.entries[0].request.url = `https://example.test/${'a'.repeat(10 * 1024 * 1024)}`;
    const { status, body } = await serve.call('importHar', { fileName: 'long-url.har', text: JSON.stringify(har) });
    expect(status, body.error?.message).toBe(200);
    expect(serve.running()).toBe(true);
  }, 60_000);

  it('a 100 MiB string argument is "too long", with its length and the limit', async () => {
    const { status, body } = await serve.call('importHar', { fileName: 'huge.har', text: 'x'.repeat(100 * 1024 * 1024) });
    expect(status).toBe(400);
    expect(body.error?.message).toBe('importHar: "text" is too long: 104,857,600 characters, at most 100,000,000');
    expect(serve.running()).toBe(true);
  }, 60_000);
});

describe('netlens serve: fuzzed requests', () => {
  it(
    `${RUNS} fuzzed requests (seed ${SEED}): no crash, no hung connection, no 500, still serving`,
    async () => {
      await serve.call('getStatus');
      const baselineFds = serve.fds();
      const statuses = new Map<number, number>();
      let slowest = 0;
      await fc.assert(
        fc.asyncProperty(uiRequest, async (spec) => {
          const bytes = spec({ port: serve.port, token: serve.token });
          const out: RawOutcome = await rawExchange(serve.port, bytes, FIN_GRACE_MS);
          for (const s of out.statuses.length ? out.statuses : [0]) statuses.set(s, (statuses.get(s) ?? 0) + 1);
          slowest = Math.max(slowest, out.closeMs);
          const shown = JSON.stringify(bytes.subarray(0, 300).toString('latin1'));
          // The ordinary command first: a crash takes a moment to show as an exit.
          const check = await serve.call('getStatus').then(
            (r) => r.status,
            (err: Error) => `${err.message} (${(err.cause as Error)?.message})`,
          );
          expect(
            serve.running() && check === 200,
            `the server died or stopped answering (${check}) after ${shown}:\n${serve.output().slice(-3000)}`,
          ).toBe(true);
          expect(out.closed, `connection still open ${FIN_GRACE_MS} ms after FIN: ${shown}`).toBe(true);
          expect(out.statuses, `a handler threw on ${shown}:\n${serve.output().slice(-3000)}`).not.toContain(500);
        }),
        { seed: SEED, numRuns: RUNS, endOnFailure: true },
      );
      const fds = await settledFds((baselineFds ?? 0) + 5);
      const summary = [...statuses]
        .sort(([a], [b]) => a - b)
        .map(([s, n]) => `${s || 'none'}:${n}`)
        .join(' ');
      console.log(
        `ui-server fuzz: ${RUNS} cases, seed ${SEED}; answers ${summary}; slowest close after FIN ${slowest} ms; fds ${baselineFds} → ${fds}`,
      );
      if (baselineFds !== undefined) expect(fds).toBeLessThanOrEqual(baselineFds + 5);
      expect(serve.output()).not.toMatch(/internal error|failed:/i);
    },
    Math.max(120_000, RUNS * 100),
  );
});
