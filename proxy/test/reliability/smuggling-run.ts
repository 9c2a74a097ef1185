/**
 * Runs one corpus case on one path: the bytes go to the proxy (child process) with
 * a fresh raw origin behind it, and the same bytes to Node's own server; the result
 * lists desyncs (hard failures) and the two decisions (compared, not asserted equal).
 */
import { formatAnswers, type Answer } from './decision.js';
import type { NodeReference } from './node-reference.js';
import type { ProxyProcess } from './proxy-process.js';
import { rawExchange, type CorpusPath, type Path } from './raw-client.js';
import { rawOrigin, type RawOrigin } from './raw-origin.js';
import type { SmuggleCase, Target } from './smuggling-cases.js';
import { header, parseResponses } from './wire.js';

export interface CaseResult {
  name: string;
  group: string;
  path: CorpusPath;
  proxy: string;
  node: string;
  /** Broken promises: smuggled or unparsable requests at the origin, wrong body framing, hangs. */
  desyncs: string[];
  hung: boolean;
}

export function targetFor(path: Path, authority: string): Target {
  return { authority, path, url: (p) => (path === 'plain' ? `http://${authority}${p}` : p) };
}

/** The proxy's answers: forwarded ones carry the origin's X-Origin-Id. */
export function proxyAnswers(bytes: Buffer, origin: RawOrigin): { answers: Answer[]; ids: string[] } {
  const { responses, garbage } = parseResponses(bytes, true);
  const ids: string[] = [];
  const answers: Answer[] = responses.map((r) => {
    const id = header(r.headers, 'x-origin-id');
    const rec = id === undefined ? undefined : origin.requests.find((q) => q.id === id);
    if (id !== undefined) ids.push(id);
    if (!rec) return { kind: 'status', status: r.status };
    return { kind: 'request', method: rec.method, path: rec.target, bodyLength: rec.bodyLength };
  });
  if (garbage) answers.push({ kind: 'garbage' });
  return { answers, ids };
}

/** The desync checks shared by the corpus and the fuzzer. */
export function desyncsOf(origin: RawOrigin, ids: string[], answers: Answer[], reference?: Answer[]): string[] {
  const out: string[] = [];
  for (const e of origin.parseErrors) out.push(`origin could not parse what the proxy sent (${e.reason}): ${JSON.stringify(e.bytes.slice(0, 300))}`);
  for (const q of origin.requests) {
    if (!ids.includes(q.id)) out.push(`origin received ${q.method} ${q.target.slice(0, 80)} (${q.bodyLength} B) but the client got no answer for it`);
  }
  if (answers.some((a) => a.kind === 'garbage')) out.push('client received bytes that do not parse as responses');
  if (reference) {
    answers.forEach((a, i) => {
      const r = reference[i];
      if (a.kind !== 'request' || r?.kind !== 'request') return;
      if (a.method !== r.method || a.bodyLength !== r.bodyLength) {
        out.push(`answer ${i}: origin saw ${a.method} with ${a.bodyLength} B where Node parsed ${r.method} with ${r.bodyLength} B`);
      }
      if (/smuggled/.test(a.path) && !/smuggled/.test(r.path)) out.push(`answer ${i}: origin saw ${a.path} where Node parsed ${r.path}`);
    });
  }
  return out;
}

export interface RunContext {
  proxy: ProxyProcess;
  reference: NodeReference;
  /** Certificate and key for TLS origins (issued by the proxy's CA). */
  originTls: { cert: string; key: string };
}

export async function runCase(ctx: RunContext, c: SmuggleCase, path: Path): Promise<CaseResult> {
  const origin = await rawOrigin(path === 'tunnel' ? { tls: ctx.originTls } : {});
  try {
    const authority = `127.0.0.1:${origin.port}`;
    const chunks = c.chunks(targetFor(path, authority)).map((s) => Buffer.from(s, 'latin1'));
    const tunnel = path === 'tunnel' ? { host: '127.0.0.1', port: origin.port, ca: ctx.proxy.ca.certPem } : undefined;
    const [out, node] = await Promise.all([rawExchange({ port: ctx.proxy.port, tunnel }, chunks), ctx.reference.decide(chunks)]);
    const { answers, ids } = proxyAnswers(out.bytes, origin);
    const desyncs = desyncsOf(origin, ids, answers, node.answers);
    if (out.setupError) desyncs.push(`could not open the client connection: ${out.setupError}`);
    if (out.hung) desyncs.push('connection still open 5 s after the client sent FIN');
    return { name: c.name, group: c.group, path, proxy: formatAnswers(answers), node: formatAnswers(node.answers) + (node.hung ? ' (hung)' : ''), desyncs, hung: out.hung };
  } finally {
    await origin.close();
  }
}

/** Runs `items` through `fn` with at most `n` at once, keeping order. */
export async function mapLimit<T, R>(items: readonly T[], n: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  const out: R[] = new Array(items.length);
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(n, items.length) }, async () => {
      while (next < items.length) {
        const i = next++;
        out[i] = await fn(items[i]!);
      }
    }),
  );
  return out;
}
