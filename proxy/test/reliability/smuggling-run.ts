/**
 * Runs one corpus case on one path: the bytes go to the proxy (child process) with
 * a fresh raw origin behind it, and the same bytes to Node's own server; the result
 * lists desyncs (hard failures) and the two decisions (compared, not asserted equal).
 */
import { formatAnswers, type Answer } from './decision.js';
import type { NodeReference } from './node-reference.js';
import type { ProxyProcess } from './proxy-process.js';
import { rawExchange, type CorpusPath, type Path, type RawOutcome } from './raw-client.js';
import { rawOrigin, type OriginRequest, type RawOrigin } from './raw-origin.js';
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

/**
 * An origin request that arrived this close to the client's FIN (or after it) lost its answer
 * to our own FIN, not to the proxy: the client waits QUIET_PENDING_MS while one is known to be
 * under way, so only a request already at the origin for longer than this counts as a desync.
 */
export const LATE_MARGIN_MS = 1_000;
/** Quiet time before FIN while a request the origin received is still unanswered to this client. */
export const QUIET_PENDING_MS = 3_000;

/** Whether the origin got `q` too late for its answer to beat the client's FIN (a slow run, not a proxy fault). */
export function lateForFin(q: OriginRequest, out: RawOutcome): boolean {
  return !out.serverClosed && out.finAt !== undefined && q.at > out.finAt - LATE_MARGIN_MS;
}

/** The desync checks shared by the corpus and the fuzzer. */
export function desyncsOf(origin: RawOrigin, ids: string[], answers: Answer[], reference?: Answer[], out?: RawOutcome): string[] {
  const result: string[] = [];
  for (const e of origin.parseErrors)
    result.push(`origin could not parse what the proxy sent (${e.reason}): ${JSON.stringify(e.bytes.slice(0, 300))}`);
  for (const q of origin.requests) {
    if (out && lateForFin(q, out)) result.push(`(late) origin received ${q.method} ${q.target.slice(0, 80)} just before the client's FIN`);
    else if (!ids.includes(q.id))
      result.push(`origin received ${q.method} ${q.target.slice(0, 80)} (${q.bodyLength} B) but the client got no answer for it`);
  }
  if (answers.some((a) => a.kind === 'garbage')) result.push('client received bytes that do not parse as responses');
  if (reference) {
    answers.forEach((a, i) => {
      const r = reference[i];
      if (a.kind !== 'request' || r?.kind !== 'request') return;
      if (a.method !== r.method || a.bodyLength !== r.bodyLength) {
        result.push(`answer ${i}: origin saw ${a.method} with ${a.bodyLength} B where Node parsed ${r.method} with ${r.bodyLength} B`);
      }
      if (/smuggled/.test(a.path) && !/smuggled/.test(r.path)) result.push(`answer ${i}: origin saw ${a.path} where Node parsed ${r.path}`);
    });
  }
  return result;
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
    // Wait longer while the origin has a request whose answer this client has not seen yet.
    const quietFor = (bytes: Buffer) => {
      const { ids } = proxyAnswers(bytes, origin);
      return origin.requests.some((q) => !ids.includes(q.id)) ? QUIET_PENDING_MS : 400;
    };
    const [out, node] = await Promise.all([
      rawExchange({ port: ctx.proxy.port, tunnel }, chunks, { quietFor }),
      ctx.reference.decide(chunks),
    ]);
    const { answers, ids } = proxyAnswers(out.bytes, origin);
    const all = desyncsOf(origin, ids, answers, node.answers, out);
    const desyncs = all.filter((d) => !d.startsWith('(late)'));
    if (all.length > desyncs.length) console.warn(`${c.name} (${path}): ${all.filter((d) => d.startsWith('(late)')).join('; ')}`);
    if (out.setupError) desyncs.push(`could not open the client connection: ${out.setupError}`);
    if (out.hung) desyncs.push('connection still open 5 s after the client sent FIN');
    const nodeDecision = formatAnswers(node.answers) + (node.hung ? ' (hung)' : '');
    return { name: c.name, group: c.group, path, proxy: formatAnswers(answers), node: nodeDecision, desyncs, hung: out.hung };
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
