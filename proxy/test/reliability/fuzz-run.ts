/**
 * Runs batches of fuzz cases against the proxy child process on one path (plain
 * listener or intercepted tunnel) with one shared raw origin, and keeps the score:
 * crashes (the child died; it is restarted to go on), hung connections (still open
 * 5 s after the client's FIN), desyncs (the origin got bytes it cannot parse, a request
 * whose answer no client received, or a client got another client's answer).
 */
import { caseChunks, type FuzzCase } from './fuzz-gen.js';
import { spawnProxy, type ProxyProcess } from './proxy-process.js';
import { rawExchange, type Path, type RawOutcome } from './raw-client.js';
import { rawOrigin, type OriginRequest, type RawOrigin } from './raw-origin.js';
import { lateForFin, QUIET_PENDING_MS, targetFor } from './smuggling-run.js';
import { header, parseResponses } from './wire.js';

export interface FuzzScore {
  cases: number;
  crashes: string[];
  hung: string[];
  desyncs: string[];
  /** Failures that are bugs owned by other items of issue 13 (counted, reported, not failed). */
  /** Normal requests that failed between batches. */
  brokenAfter: number;
  /** Requests whose answer our own FIN cut off: they reached the origin within a second of it (a slow machine). */
  late: number;
  lateExamples: string[];
  /** Requests the origin received (fuzzed and sentinels). */
  forwarded: number;
  /** Statuses the clients received, by status ("origin" for answers from the origin). */
  answers: Record<string, number>;
}

/**
 * How long the client waits for more bytes before its FIN when neither the sentinel's answer
 * nor a close came: generous even when every request the origin got from this client was answered (one may still be on its way),
 * long while one is under way (on a loaded machine an answer later than the quiet time
 * would be lost by our own FIN and counted as a desync).
 */
const QUIET_MS = { plain: 1_500, tunnel: 1_500 };

interface CaseRun {
  tag: string;
  chunks: Buffer[];
  out: RawOutcome;
  ids: string[];
  /** What the client got, in order: 'origin' for the origin's answers, else the proxy's status. */
  statuses: string[];
  c: FuzzCase;
}

const show = (chunks: Buffer[]) => JSON.stringify(Buffer.concat(chunks).toString('latin1').slice(0, 600));

export class Fuzzer {
  readonly score: FuzzScore = {
    cases: 0,
    crashes: [],
    hung: [],
    desyncs: [],
    brokenAfter: 0,
    late: 0,
    lateExamples: [],
    forwarded: 0,
    answers: {},
  };
  private counter = 0;
  /** Origin requests by the tag of the case under way that sent them. */
  private readonly byTag = new Map<string, OriginRequest[]>();
  /** Finished cases by tag: a request can reach the origin after its case's batch was checked. */
  private readonly finished = new Map<string, CaseRun>();
  private constructor(
    readonly path: Path,
    private proxy: ProxyProcess,
    private origin: RawOrigin,
    private readonly originTls: { cert: string; key: string },
  ) {
    this.watch(origin);
  }

  /** Files each origin request under the tag of the case that sent it (`/f<n>.<i>/…`). */
  private watch(origin: RawOrigin): void {
    origin.onRequest((q) => {
      const m = /^\/(f\d+)\./.exec(q.target);
      if (m) this.byTag.get(m[1]!)?.push(q);
    });
  }

  static async start(path: Path): Promise<Fuzzer> {
    const proxy = await spawnProxy();
    const { certPem, keyPem } = proxy.ca.issue(['localhost', '127.0.0.1']);
    const tlsOpts = { cert: certPem, key: keyPem };
    const origin = await rawOrigin(path === 'tunnel' ? { tls: tlsOpts } : {});
    return new Fuzzer(path, proxy, origin, tlsOpts);
  }

  get pid(): number {
    return this.proxy.pid;
  }

  private endpoint() {
    const tunnel = this.path === 'tunnel' ? { host: '127.0.0.1', port: this.origin.port, ca: this.proxy.ca.certPem } : undefined;
    return { port: this.proxy.port, tunnel };
  }

  private async runCase(c: FuzzCase): Promise<CaseRun> {
    const tag = `f${++this.counter}`;
    const t = targetFor(this.path, `127.0.0.1:${this.origin.port}`);
    const chunks = caseChunks(c, tag, t.authority, t.url);
    // A well-formed request after the fuzzed bytes: its answer means everything before it was answered.
    chunks.push(Buffer.from(`GET ${t.url(`/${tag}.s/sentinel`)} HTTP/1.1\r\nHost: ${t.authority}\r\n\r\n`, 'latin1'));
    // Kept cheap: these run while 100 clients wait, and the origin's log grows to tens of thousands.
    const mine: OriginRequest[] = [];
    this.byTag.set(tag, mine);
    let parsedAt = -1;
    let got = new Set<string>();
    const idsIn = (bytes: Buffer) => {
      if (bytes.length !== parsedAt) {
        parsedAt = bytes.length;
        got = new Set(parseResponses(bytes, false).responses.flatMap((r) => header(r.headers, 'x-origin-id') ?? []));
      }
      return got;
    };
    const sentinelAnswered = (bytes: Buffer) => {
      const ids = idsIn(bytes);
      return mine.some((q) => ids.has(q.id) && q.target.startsWith(`/${tag}.s/`));
    };
    const quietFor = (bytes: Buffer) => {
      const ids = idsIn(bytes);
      return mine.some((q) => !ids.has(q.id)) ? QUIET_PENDING_MS : QUIET_MS[this.path];
    };
    const t0 = Date.now();
    const out = await rawExchange(this.endpoint(), chunks, { quietFor, gapMs: 1, doneWhen: sentinelAnswered });
    const ms = Date.now() - t0;
    if (process.env.NETLENS_FUZZ_DEBUG && ms > 1000) {
      console.log(`slow case ${tag}: ${ms} ms (wait ${out.millis} ms, server closed ${out.serverClosed}) ${show(chunks).slice(0, 300)}`);
    }
    this.byTag.delete(tag);
    const responses = parseResponses(out.bytes, true).responses;
    const ids = responses.flatMap((r) => header(r.headers, 'x-origin-id') ?? []);
    const statuses = responses.map((r) => (header(r.headers, 'x-origin-id') ? 'origin' : String(r.status)));
    for (const key of statuses) this.score.answers[key] = (this.score.answers[key] ?? 0) + 1;
    if (!responses.length) this.score.answers['none (closed)'] = (this.score.answers['none (closed)'] ?? 0) + 1;
    return { tag, chunks, out, ids, statuses, c };
  }

  /** Runs the cases at once, then checks the proxy and the origin's log. */
  async runBatch(cases: FuzzCase[]): Promise<void> {
    const originBefore = this.origin.requests.length;
    const errorsBefore = this.origin.parseErrors.length;
    const runs = await Promise.all(cases.map((c) => this.runCase(c)));
    this.score.cases += runs.length;
    await new Promise((r) => setTimeout(r, 50));
    const exit = this.proxy.exited();
    if (exit) {
      const batch = runs
        .map((r) => show(r.chunks))
        .join(' || ')
        .slice(0, 4000);
      this.score.crashes.push(
        `proxy exited (${JSON.stringify(exit)}) during a batch; stderr: ${this.proxy.stderr().slice(-1500)}; batch: ${batch}`,
      );
      await this.restart();
      return;
    }
    for (const r of runs) {
      if (r.out.setupError) this.score.desyncs.push(`${r.tag}: could not open the client connection: ${r.out.setupError}`);
      if (!r.out.hung) continue;
      this.score.hung.push(`${r.tag}: connection open 5 s after FIN; sent ${show(r.chunks)}`);
    }
    for (const e of this.origin.parseErrors.slice(errorsBefore)) {
      this.score.desyncs.push(`origin could not parse (${e.reason}): ${JSON.stringify(e.bytes.slice(0, 400))}`);
    }
    for (const r of runs) this.finished.set(r.tag, r);
    const answered = new Map<string, CaseRun>();
    for (const r of runs) for (const id of r.ids) answered.set(id, r);
    this.score.forwarded += this.origin.requests.length - originBefore;
    // Requests of this batch, and late ones of earlier batches, as they reached the origin.
    for (const q of this.origin.requests.slice(originBefore)) {
      const tag = /^\/(f\d+)\./.exec(q.target)?.[1];
      const owner = tag ? this.finished.get(tag) : undefined;
      const got = answered.get(q.id);
      if (got && owner && got !== owner) {
        this.score.desyncs.push(`${got.tag} received the answer to ${owner.tag}'s ${q.method} ${q.target.slice(0, 60)}`);
      } else if (got || owner?.ids.includes(q.id)) {
        // answered
      } else if (owner && lateForFin(q, owner.out)) {
        this.score.late++;
        if (this.score.lateExamples.length < 5) {
          const when = `${q.at - owner.out.finAt!} ms after the client's FIN (client got [${owner.statuses.join(', ')}] in ${owner.out.millis} ms)`;
          this.score.lateExamples.push(`${q.method} ${q.target.slice(0, 40)} reached the origin ${when}; sent ${show(owner.chunks)}`);
        }
      } else {
        const how = owner
          ? `client got [${owner.statuses.join(', ')}], server closed: ${owner.out.serverClosed}, ${owner.out.millis} ms`
          : 'no case has its tag';
        const what = `${q.method} ${q.target.slice(0, 60)} (${q.bodyLength} B)`;
        this.score.desyncs.push(
          `origin received ${what} that no client got an answer for (${how}); sent ${owner ? show(owner.chunks) : '?'}`,
        );
      }
    }
  }

  /** A normal request through the proxy on this path works. */
  async normalRequestWorks(): Promise<boolean> {
    const t = targetFor(this.path, `127.0.0.1:${this.origin.port}`);
    const out = await rawExchange(this.endpoint(), [Buffer.from(`GET ${t.url('/normal')} HTTP/1.1\r\nHost: ${t.authority}\r\n\r\n`)], {
      doneWhen: (b) => parseResponses(b, false).responses.length > 0,
    });
    const r = parseResponses(out.bytes, true).responses[0];
    const ok = r?.status === 200 && header(r.headers, 'x-origin-id') !== undefined;
    if (!ok) this.score.brokenAfter++;
    return ok;
  }

  private async restart(): Promise<void> {
    await this.proxy.stop();
    await this.origin.close();
    this.proxy = await spawnProxy();
    this.origin = await rawOrigin(this.path === 'tunnel' ? { tls: this.originTls } : {});
    this.watch(this.origin);
  }

  /** Event-loop stalls over 300 ms the proxy child reported (a loaded machine explains late answers). */
  stalls(): number {
    return (this.proxy.stderr().match(/event loop stalled/g) ?? []).length;
  }

  alive(): boolean {
    return this.proxy.exited() === null;
  }

  async stop(): Promise<void> {
    await this.origin.close();
    await this.proxy.stop();
  }
}
