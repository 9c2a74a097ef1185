/**
 * Sessions → Serve and Resend, for the API (commands/replay.ts delegates here).
 *
 * Serve runs a replay proxy of its own next to the capture proxy (same CA and
 * upstream options), so serving a session never stops the live capture and the
 * capture proxy's port stays what the browser was told. One replay server at a
 * time: a second start is refused (NL_REPLAY_RUNNING) rather than silently
 * replacing the one a browser may be pointed at. Its counts are pushed as
 * `replay-server` events, coalesced to one per STATUS_EVENT_MS.
 *
 * Resend sends the session's requests again through the capture proxy when it
 * runs (they then show in the live capture) or directly, and returns
 * client-replay's typed comparison rows. One resend at a time per core: each
 * holds up to RESEND_CONCURRENCY sockets and a 30 s timeout per request.
 */
import { ErrorCodes, NetlensError, errorCodeOf } from '../errors.js';
import type { ProxyOptions } from '../options.js';
import type { ProxyHandle } from '../server/proxy-server.js';
import { replayableEntries } from '../replay/load.js';
import { ServerReplay, UNMATCHED_POLICIES, type ServerReplayReport } from '../replay/server-replay.js';
import { resend } from '../replay/client-replay.js';
import { summarizeResend } from '../replay/report.js';
import type { SessionBackend } from './backends.js';
import type { CommandArgs, NetlensEvent, ReplayServerStatus, ReplayUnmatchedPolicy, ResendReport, ResendRowInfo } from './contract.js';
import { bad, obj } from './commands/args.js';

export const STATUS_EVENT_MS = 250;
export const RESEND_CONCURRENCY = 4;
export const RESEND_TIMEOUT_MS = 30_000;
const LISTED_UNMATCHED = 20;

export interface ReplayServiceDeps {
  dataDir: string;
  sessions: SessionBackend;
  startProxy: (options: ProxyOptions) => Promise<ProxyHandle>;
  /** Upstream CA, insecure… as the capture proxy uses them (read at each start: settings may change). */
  proxyExtras: () => Partial<ProxyOptions>;
  /** The capture proxy, when it runs (Resend goes through it). */
  captureProxy: () => { url: string; caPem: string } | undefined;
  emit: (event: NetlensEvent) => void;
}

interface Serving {
  session: { id: string; name: string };
  extra: ReplayUnmatchedPolicy;
  replay: ServerReplay;
  proxy: ProxyHandle;
  unsubscribe: () => void;
}

function sessionId(a: Record<string, unknown>, command: string): string {
  if (typeof a.id !== 'string' || a.id.length === 0 || a.id.length > 500)
    throw bad(`${command}: "id" must be a session id (a non-empty string)`);
  return a.id;
}

interface StatusParts {
  session?: Serving['session'];
  extra: ReplayUnmatchedPolicy;
  report?: ServerReplayReport;
  address?: ReplayServerStatus['address'];
}

function statusOf(s: StatusParts, running: boolean): ReplayServerStatus {
  const r = s.report;
  return {
    running,
    ...(s.session ? { session: s.session } : {}),
    ...(running && s.address ? { address: s.address } : {}),
    extra: s.extra,
    recorded: r?.recorded ?? 0,
    served: r?.served ?? 0,
    reused: r?.reused ?? 0,
    unmatched: r ? { ...r.unmatched } : { forward: 0, '404': 0, kill: 0 },
    unmatchedRequests: (r?.unmatchedRequests ?? []).slice(0, LISTED_UNMATCHED),
    unused: r?.unused ?? 0,
  };
}

export class ReplayService {
  private serving: Serving | undefined;
  /** The last stopped server's final counts, so the UI can still show them. */
  private last: ReplayServerStatus = statusOf({ extra: 'forward' }, false);
  /** Start/stop run one after another (a double click must not start two servers). */
  private op: Promise<unknown> = Promise.resolve();
  private eventTimer: NodeJS.Timeout | undefined;
  private resending: AbortController | undefined;

  constructor(private readonly deps: ReplayServiceDeps) {}

  private serialize<T>(fn: () => Promise<T>): Promise<T> {
    const next = this.op.then(fn, fn);
    this.op = next.catch(() => undefined);
    return next;
  }

  status(): ReplayServerStatus {
    const s = this.serving;
    return s ? statusOf({ ...s, report: s.replay.report(), address: s.proxy.address }, true) : this.last;
  }

  private pushStatus(): void {
    clearTimeout(this.eventTimer);
    this.eventTimer = undefined;
    this.deps.emit({ type: 'replay-server', status: this.status() });
  }

  /** Counts change per request: push at most one event per STATUS_EVENT_MS. */
  private schedulePush(): void {
    if (!this.eventTimer) this.eventTimer = setTimeout(() => this.pushStatus(), STATUS_EVENT_MS);
  }

  async start(raw: CommandArgs<'startReplayServer'>): Promise<ReplayServerStatus> {
    const a = obj(raw, 'startReplayServer');
    const id = sessionId(a, 'startReplayServer');
    const port = a.port ?? 0;
    if (!Number.isInteger(port) || (port as number) < 0 || (port as number) > 65535) {
      throw bad('startReplayServer: "port" must be a whole number 0–65535 (0 = any free port)');
    }
    const extra = (a.extra ?? 'forward') as ReplayUnmatchedPolicy;
    if (!UNMATCHED_POLICIES.includes(extra)) throw bad('startReplayServer: "extra" must be "forward", "404" or "kill"');
    return this.serialize(async () => {
      if (this.serving) {
        throw new NetlensError(
          ErrorCodes.REPLAY_RUNNING,
          `The replay server already serves "${this.serving.session.name}" on ${this.serving.proxy.address.url}: one replay server at a time. Stop it first.`,
        );
      }
      const opened = await this.deps.sessions.open(id);
      const session = { id, name: opened.info.name };
      const entries = replayableEntries({ log: opened.log }, `Session "${session.name}"`);
      const replay = new ServerReplay(entries, { extra });
      let proxy: ProxyHandle;
      try {
        proxy = await this.deps.startProxy({
          ...this.deps.proxyExtras(),
          port: port as number,
          dataDir: this.deps.dataDir,
          respond: replay,
        });
      } catch (err) {
        const e = err as Error | undefined;
        const code = errorCodeOf(err, ErrorCodes.LISTEN_FAILED);
        const inUse = `port ${port} is already in use. Choose another port, or leave it empty for any free port.`;
        const hint = code === ErrorCodes.PORT_IN_USE ? inUse : String(e?.message ?? err);
        throw new NetlensError(code, `The replay server for "${session.name}" could not start: ${hint}`, { cause: err });
      }
      const unsubscribe = proxy.events.subscribe((e) => {
        if (e.type === 'complete' || e.type === 'error') this.schedulePush();
      });
      this.serving = { session, extra, replay, proxy, unsubscribe };
      const status = this.status();
      this.pushStatus();
      return status;
    });
  }

  async stop(): Promise<ReplayServerStatus> {
    return this.serialize(async () => {
      if (!this.serving)
        throw new NetlensError(ErrorCodes.REPLAY_NOT_RUNNING, 'No replay server is running: start one with Serve on a session.');
      await this.stopNow();
      this.pushStatus();
      return this.last;
    });
  }

  private async stopNow(): Promise<void> {
    const s = this.serving;
    if (!s) return;
    this.serving = undefined;
    s.unsubscribe();
    this.last = statusOf({ ...s, report: s.replay.report() }, false);
    await s.proxy.stop();
  }

  async resend(raw: CommandArgs<'resendSession'>): Promise<ResendReport> {
    const id = sessionId(obj(raw, 'resendSession'), 'resendSession');
    if (this.resending)
      throw new NetlensError(ErrorCodes.REPLAY_RUNNING, 'A resend is already running: wait for its diff, then resend again.');
    const abort = new AbortController();
    this.resending = abort;
    try {
      const opened = await this.deps.sessions.open(id);
      const session = { id, name: opened.info.name };
      const entries = replayableEntries({ log: opened.log }, `Session "${session.name}"`);
      const capture = this.deps.captureProxy();
      const extras = this.deps.proxyExtras();
      const result = await resend(entries, {
        proxyUrl: capture?.url,
        ca: capture ? [capture.caPem] : (extras.upstreamCA ?? []),
        insecure: !capture && Boolean(extras.insecureUpstream),
        concurrency: RESEND_CONCURRENCY,
        timeoutMs: RESEND_TIMEOUT_MS,
        signal: abort.signal,
      });
      const rows: ResendRowInfo[] = result.rows;
      return { session, via: capture ? 'proxy' : 'direct', rows, summary: summarizeResend(result) };
    } finally {
      this.resending = undefined;
    }
  }

  async close(): Promise<void> {
    clearTimeout(this.eventTimer);
    this.eventTimer = undefined;
    this.resending?.abort();
    await this.serialize(() => this.stopNow());
  }
}
