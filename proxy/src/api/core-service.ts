/**
 * The API contract implemented over the core modules: one object both
 * transports (HTTP/WebSocket, Electron IPC) wrap without adding logic.
 *
 * It owns the live capture (exchanges seen by the proxy it started), turns the
 * proxy's event stream into batched row updates, and delegates sessions, lab
 * and browser launch to their modules (backends.ts). Arguments arrive from a
 * transport as untrusted JSON, so every command checks its own.
 */
import fs from 'node:fs';
import path from 'node:path';
import { startProxy as realStartProxy, type ProxyHandle } from '../server/proxy-server.js';
import type { ProxyOptions } from '../options.js';
import type { Exchange, ProxyEvent } from '../model.js';
import { ErrorCodes, NetlensError, errorCodeOf, type ErrorCode } from '../errors.js';
import { loadOrCreateCA } from '../tls/ca.js';
import { trustInstructions } from '../tls/trust.js';
import {
  EXCHANGE_BATCH_MS,
  type AppStatus,
  type BodyView,
  type CommandArgs,
  type CommandResult,
  type ExchangeDetail,
  type ExchangeSummary,
  type NetlensApi,
  type NetlensEvent,
  type NetlensEventListener,
  type ProxyConfig,
  type ProxyStatus,
} from './contract.js';
import { exchangeDetail, exchangeSummary, pendingSummary, withResponseHead } from './summary.js';
import { bodyView } from './body-view.js';
import { SessionCommands } from './session-commands.js';
import { memorySessions, parseHarText, unavailableBrowser, unavailableLab, type BrowserBackend, type LabBackend, type SessionBackend } from './backends.js';
import { LabService } from './lab-service.js';
import { ReplayService } from './replay-service.js';
import { noDisplayReason } from '../browser/display.js';
import { DEFAULT_BODY_CAPTURE_LIMIT } from '../options.js';
import { checkPortFree, proxyConfigPatch, readCAFiles } from './proxy-config.js';

export interface CoreServiceOptions {
  dataDir: string;
  /** Initial proxy settings (port 8080, intercept, HTTP/2, no Nagle by default). */
  proxy?: Partial<ProxyConfig>;
  version?: string;
  /** Injected in tests to feed events without a real proxy. */
  startProxy?: (options: ProxyOptions) => Promise<ProxyHandle>;
  sessions?: SessionBackend;
  lab?: LabBackend;
  browser?: BrowserBackend;
  batchMs?: number;
  /** Extra proxy options passed through as they are (PEM texts in `upstreamCA` add to `proxy.upstreamCAFiles`). */
  proxyExtras?: Omit<ProxyOptions, 'port' | 'intercept' | 'http2' | 'nagle' | 'dataDir' | 'insecureUpstream' | 'bodyCaptureLimit'>;
}

interface Row {
  summary: ExchangeSummary;
  exchange?: Exchange;
}

function bad(message: string): NetlensError {
  return new NetlensError(ErrorCodes.API_BAD_REQUEST, message);
}

function obj(args: unknown, command: string): Record<string, unknown> {
  if (args === undefined || args === null) return {};
  if (typeof args !== 'object' || Array.isArray(args)) throw bad(`${command}: the argument must be an object`);
  return args as Record<string, unknown>;
}

/** A string argument; each way it can be wrong gets its own message (a 100 MiB string is not "empty"). */
function str(args: Record<string, unknown>, key: string, command: string, maxLength = 100_000_000): string {
  const v = args[key];
  if (typeof v !== 'string') throw bad(`${command}: "${key}" must be a string${v === undefined ? ' (it is missing)' : `, not ${v === null ? 'null' : Array.isArray(v) ? 'an array' : typeof v}`}`);
  if (v.length === 0) throw bad(`${command}: "${key}" must not be empty`);
  if (v.length > maxLength) throw bad(`${command}: "${key}" is too long: ${v.length.toLocaleString('en-US')} characters, at most ${maxLength.toLocaleString('en-US')}`);
  return v;
}

export class CoreService implements NetlensApi {
  private readonly listeners = new Set<NetlensEventListener>();
  private readonly rows = new Map<string, Row>();
  private order: string[] = [];
  private dirty = new Map<string, ExchangeSummary>();
  private flushTimer: NodeJS.Timeout | undefined;
  private proxy: ProxyHandle | undefined;
  private unsubscribeProxy: (() => void) | undefined;
  private proxyError: { code: ErrorCode; message: string } | undefined;
  private config: ProxyConfig;
  private proxyOp: Promise<unknown> = Promise.resolve();
  /** openSession and what the UI asks of an opened session (bounded caches of its own). */
  private readonly sessionView: SessionCommands;
  private readonly browsers = new Set<{ close(): Promise<void> }>();
  private readonly sessions: SessionBackend;
  private readonly labs: LabService;
  private readonly browser: BrowserBackend;
  private readonly batchMs: number;
  private readonly startProxyFn: (options: ProxyOptions) => Promise<ProxyHandle>;
  /** Sessions → Serve (a replay proxy of its own) and Resend. */
  private readonly replays: ReplayService;

  constructor(private readonly options: CoreServiceOptions) {
    this.config = {
      port: 8080,
      intercept: true,
      http2: true,
      nagle: false,
      upstreamCAFiles: [],
      insecureUpstream: false,
      bodyCaptureLimit: DEFAULT_BODY_CAPTURE_LIMIT,
      ...options.proxy,
    };
    this.sessions = options.sessions ?? memorySessions();
    this.sessionView = new SessionCommands(this.sessions);
    this.labs = new LabService(options.lab ?? unavailableLab, options.dataDir, (e) => this.emit(e), () => ({
      upstreamCA: [...(this.options.proxyExtras?.upstreamCA ?? []), ...readCAFiles(this.config.upstreamCAFiles)],
      insecure: this.config.insecureUpstream,
    }));
    this.browser = options.browser ?? unavailableBrowser;
    this.batchMs = options.batchMs ?? EXCHANGE_BATCH_MS;
    this.startProxyFn = options.startProxy ?? realStartProxy;
    this.replays = new ReplayService({
      dataDir: options.dataDir,
      sessions: this.sessions,
      startProxy: this.startProxyFn,
      // The replay proxy trusts and captures what the capture proxy does (Settings included).
      proxyExtras: () => ({
        ...this.options.proxyExtras,
        upstreamCA: [...(this.options.proxyExtras?.upstreamCA ?? []), ...readCAFiles(this.config.upstreamCAFiles)],
        insecureUpstream: this.config.insecureUpstream,
        bodyCaptureLimit: this.config.bodyCaptureLimit,
        intercept: this.config.intercept,
        http2: this.config.http2,
        nagle: this.config.nagle,
      }),
      captureProxy: () => (this.proxy ? { url: this.proxy.address.url, caPem: this.proxy.ca.certPem } : undefined),
      emit: (e) => this.emit(e),
    });
  }

  subscribe(listener: NetlensEventListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private emit(event: NetlensEvent): void {
    for (const listener of this.listeners) {
      try {
        listener(event);
      } catch (err) {
        process.emitWarning(`Netlens API listener threw on "${event.type}": ${(err as Error)?.stack ?? err}`, { code: ErrorCodes.LISTENER_FAILED });
      }
    }
  }

  // ── live capture ──────────────────────────────────────────────────────────

  private onProxyEvent(e: ProxyEvent): void {
    switch (e.type) {
      case 'request': {
        const summary = pendingSummary(e.exchange);
        if (!this.rows.has(summary.id)) this.order.push(summary.id);
        this.rows.set(summary.id, { summary });
        this.markDirty(summary);
        break;
      }
      case 'response': {
        const row = this.rows.get(e.response.id);
        if (row && !row.exchange) {
          row.summary = withResponseHead(row.summary, e.response);
          this.markDirty(row.summary);
        }
        break;
      }
      case 'complete':
      case 'error': {
        const summary = exchangeSummary(e.exchange);
        if (!this.rows.has(summary.id)) this.order.push(summary.id);
        this.rows.set(summary.id, { summary, exchange: e.exchange });
        this.markDirty(summary);
        break;
      }
      case 'closed':
        if (this.proxy) {
          this.proxy = undefined;
          this.emit({ type: 'proxy-status', status: this.proxyStatus() });
        }
        break;
      default:
        break;
    }
  }

  /** Coalesces updates per id and flushes them at most every `batchMs`. */
  private markDirty(summary: ExchangeSummary): void {
    this.dirty.set(summary.id, summary);
    if (!this.flushTimer) this.flushTimer = setTimeout(() => this.flush(), this.batchMs);
  }

  private flush(): void {
    this.flushTimer = undefined;
    if (this.dirty.size === 0) return;
    const items = [...this.dirty.values()];
    this.dirty.clear();
    this.emit({ type: 'exchanges', items });
  }

  async listExchanges(): Promise<ExchangeSummary[]> {
    return this.order.map((id) => this.rows.get(id)!.summary);
  }

  private row(args: unknown, command: string): Row & { id: string } {
    const id = str(obj(args, command), 'id', command, 200);
    const row = this.rows.get(id);
    if (!row) throw new NetlensError(ErrorCodes.NOT_FOUND, `No exchange "${id}" in the live capture (it may have been cleared).`);
    return { ...row, id };
  }

  async getExchange(args: CommandArgs<'getExchange'>): Promise<ExchangeDetail> {
    const row = this.row(args, 'getExchange');
    if (!row.exchange) {
      return { summary: row.summary, request: { httpVersion: row.summary.protocol, headers: [], bodySize: -1, bodyTruncated: false } };
    }
    return exchangeDetail(row.exchange);
  }

  async getExchangeBody(args: CommandArgs<'getExchangeBody'>): Promise<BodyView> {
    const row = this.row(args, 'getExchangeBody');
    const side = obj(args, 'getExchangeBody').side;
    if (side !== 'request' && side !== 'response') throw bad('getExchangeBody: "side" must be "request" or "response"');
    const x = row.exchange;
    if (!x) return { kind: 'none', data: '', mimeType: '', wireSize: 0, decodedSize: 0, captureTruncated: false, displayTruncated: false };
    return side === 'request' ? bodyView(x.request.body, x.request.headers) : bodyView(x.response?.body, x.response?.headers ?? []);
  }

  async clearExchanges(): Promise<{ cleared: number }> {
    const cleared = this.order.length;
    this.rows.clear();
    this.order = [];
    this.dirty.clear();
    this.emit({ type: 'exchanges-cleared' });
    return { cleared };
  }

  private capturedExchanges(): Exchange[] {
    const out: Exchange[] = [];
    for (const id of this.order) {
      const x = this.rows.get(id)?.exchange;
      if (x) out.push(x);
    }
    return out;
  }

  // ── proxy ─────────────────────────────────────────────────────────────────

  private proxyStatus(): ProxyStatus {
    const p = this.proxy;
    return {
      running: Boolean(p),
      address: p?.address,
      config: { ...this.config },
      ca: p ? { certPath: p.ca.certPath, fingerprint: p.ca.fingerprint, leafSpkiHash: p.ca.leafSpkiHash } : undefined,
      trustHelp: p ? trustInstructions(p.ca.certPath, p.ca.leafSpkiHash, p.address) : undefined,
      error: this.proxyError,
    };
  }

  /** Proxy start/stop calls run one after another, never interleaved. */
  private serialize<T>(op: () => Promise<T>): Promise<T> {
    const next = this.proxyOp.then(op, op);
    this.proxyOp = next.catch(() => undefined);
    return next;
  }

  private async stopProxyNow(): Promise<void> {
    const p = this.proxy;
    this.proxy = undefined;
    this.unsubscribeProxy?.();
    this.unsubscribeProxy = undefined;
    if (p) await p.stop();
  }

  private async startProxyNow(): Promise<ProxyStatus> {
    await this.stopProxyNow();
    this.proxyError = undefined;
    try {
      const { upstreamCAFiles, ...config } = this.config;
      // Read at each start (not only when configured): a CA file renewed on disk is picked up by a restart.
      const upstreamCA = [...(this.options.proxyExtras?.upstreamCA ?? []), ...readCAFiles(upstreamCAFiles)];
      const handle = await this.startProxyFn({
        ...this.options.proxyExtras,
        ...config,
        upstreamCA,
        dataDir: this.options.dataDir,
      });
      this.proxy = handle;
      this.unsubscribeProxy = handle.events.subscribe((e) => this.onProxyEvent(e));
    } catch (err) {
      const e = err as Error;
      this.proxyError = { code: errorCodeOf(err, ErrorCodes.LISTEN_FAILED), message: e.message };
      this.emit({ type: 'proxy-status', status: this.proxyStatus() });
      throw new NetlensError(this.proxyError.code, `The proxy could not start on port ${this.config.port}: ${e.message}`);
    }
    const status = this.proxyStatus();
    this.emit({ type: 'proxy-status', status });
    return status;
  }

  async startProxy(args: CommandArgs<'startProxy'>): Promise<ProxyStatus> {
    const patch = proxyConfigPatch(obj(args, 'startProxy'), 'startProxy');
    return this.serialize(async () => {
      this.config = { ...this.config, ...patch };
      return this.startProxyNow();
    });
  }

  async stopProxy(): Promise<ProxyStatus> {
    return this.serialize(async () => {
      await this.stopProxyNow();
      const status = this.proxyStatus();
      this.emit({ type: 'proxy-status', status });
      return status;
    });
  }

  async configureProxy(args: CommandArgs<'configureProxy'>): Promise<ProxyStatus> {
    const patch = proxyConfigPatch(obj(args, 'configureProxy'), 'configureProxy');
    return this.serialize(async () => {
      // A taken port is refused before anything changes: the running proxy keeps running as it was.
      const current = this.proxy ? this.proxy.address.port : this.config.port;
      if (patch.port !== undefined && patch.port !== current) await checkPortFree(patch.port);
      this.config = { ...this.config, ...patch };
      if (this.proxy) return this.startProxyNow();
      const status = this.proxyStatus();
      this.emit({ type: 'proxy-status', status });
      return status;
    });
  }

  async getCaCertificate(): Promise<CommandResult<'getCaCertificate'>> {
    // The certificate only: the key never leaves the data directory.
    const ca = this.proxy?.ca ?? (await loadOrCreateCA(this.options.dataDir));
    return { fileName: 'netlens-ca.pem', text: ca.certPem };
  }

  async getStatus(): Promise<AppStatus> {
    const proxy = this.proxyStatus();
    if (!proxy.ca) {
      // Show the CA even while the proxy is off: users trust it before browsing.
      try {
        const ca = await loadOrCreateCA(this.options.dataDir);
        proxy.ca = { certPath: ca.certPath, fingerprint: ca.fingerprint, leafSpkiHash: ca.leafSpkiHash };
        proxy.trustHelp = trustInstructions(ca.certPath, ca.leafSpkiHash, { host: '127.0.0.1', port: this.config.port });
      } catch {
        // The CA store error surfaces when the proxy starts; status stays usable.
      }
    }
    return {
      version: this.options.version ?? '0.0.0',
      dataDir: this.options.dataDir,
      proxy,
      features: { sessions: this.sessions.persistent, lab: this.labs.available, browser: this.browser.available, replay: true, display: !noDisplayReason() },
      exchangeCount: this.order.length,
    };
  }

  async launchBrowser(args: CommandArgs<'launchBrowser'>): Promise<CommandResult<'launchBrowser'>> {
    const a = obj(args, 'launchBrowser');
    const url = a.url === undefined ? undefined : str(a, 'url', 'launchBrowser', 8192);
    if (!this.proxy) throw new NetlensError(ErrorCodes.LISTEN_FAILED, 'Start the proxy first: the browser is launched wired to it.');
    const b = await this.browser.launch({ proxyUrl: this.proxy.address.url, spkiHash: this.proxy.ca.leafSpkiHash, url, dataDir: this.options.dataDir });
    this.browsers.add(b);
    return { pid: b.pid, url: b.url, ...(b.headless ? { headless: true } : {}), ...(b.message ? { message: b.message } : {}) };
  }

  // ── sessions ──────────────────────────────────────────────────────────────

  async listSessions(): Promise<CommandResult<'listSessions'>> {
    return this.sessions.list();
  }

  /** Rows only, like the live capture: details, bodies and whole values come one entry at a time. */
  async openSession(args: CommandArgs<'openSession'>): Promise<CommandResult<'openSession'>> {
    return this.sessionView.open(args);
  }

  async getSessionEntry(args: CommandArgs<'getSessionEntry'>): Promise<CommandResult<'getSessionEntry'>> {
    return this.sessionView.detail(args);
  }

  async getSessionBody(args: CommandArgs<'getSessionBody'>): Promise<CommandResult<'getSessionBody'>> {
    return this.sessionView.body(args);
  }

  async getSessionField(args: CommandArgs<'getSessionField'>): Promise<CommandResult<'getSessionField'>> {
    return this.sessionView.field(args);
  }

  async saveSession(args: CommandArgs<'saveSession'>): Promise<CommandResult<'saveSession'>> {
    const a = obj(args, 'saveSession');
    const name = str(a, 'name', 'saveSession', 200).trim();
    if (!name) throw bad('saveSession: "name" must not be blank');
    const info = a.id === undefined ? await this.sessions.saveCapture(name, this.capturedExchanges()) : await this.sessions.rename(str(a, 'id', 'saveSession', 500), name);
    this.emit({ type: 'sessions-changed' });
    return info;
  }

  async importHar(args: CommandArgs<'importHar'>): Promise<CommandResult<'importHar'>> {
    const a = obj(args, 'importHar');
    const info = await this.sessions.importHar(str(a, 'fileName', 'importHar', 500), str(a, 'text', 'importHar'));
    this.emit({ type: 'sessions-changed' });
    return info;
  }

  async exportHar(args: CommandArgs<'exportHar'>): Promise<CommandResult<'exportHar'>> {
    const a = obj(args, 'exportHar');
    return a.id === undefined ? this.sessions.exportCapture(this.capturedExchanges()) : this.sessions.exportHar(str(a, 'id', 'exportHar', 500));
  }

  async deleteSession(args: CommandArgs<'deleteSession'>): Promise<CommandResult<'deleteSession'>> {
    const id = str(obj(args, 'deleteSession'), 'id', 'deleteSession', 500);
    const deleted = await this.sessions.delete(id);
    this.sessionView.forget(id);
    this.emit({ type: 'sessions-changed' });
    return { deleted };
  }

  // Sessions → Serve and Resend live in replay-service.ts.
  startReplayServer = (args: CommandArgs<'startReplayServer'>) => this.replays.start(args);
  replayServerStatus = async (): Promise<CommandResult<'replayServerStatus'>> => this.replays.status();
  stopReplayServer = () => this.replays.stop();
  resendSession = (args: CommandArgs<'resendSession'>) => this.replays.resend(args);

  // ── lab ───────────────────────────────────────────────────────────────────

  // Lab bookkeeping and history live in lab-service.ts.
  getLabOptions = async (): Promise<CommandResult<'getLabOptions'>> => this.labs.options();
  startLab = (args: CommandArgs<'startLab'>) => this.labs.start(args);
  cancelLab = (args: CommandArgs<'cancelLab'>) => this.labs.cancel(args);
  getLabRun = (args: CommandArgs<'getLabRun'>) => this.labs.get(args);
  getLabHar = (args: CommandArgs<'getLabHar'>) => this.labs.har(args);
  listLabRuns = () => this.labs.list();
  deleteLabRun = (args: CommandArgs<'deleteLabRun'>) => this.labs.remove(args);
  compareLabRuns = (args: CommandArgs<'compareLabRuns'>) => this.labs.compare(args);
  exportLabReport = (args: CommandArgs<'exportLabReport'>) => this.labs.report(args);

  // ── lifecycle ─────────────────────────────────────────────────────────────

  /** Stops the proxy, cancels lab runs, closes launched browsers. */
  async close(): Promise<void> {
    clearTimeout(this.flushTimer);
    this.sessionView.close();
    this.labs.close();
    await this.replays.close();
    await Promise.allSettled([...this.browsers].map((b) => b.close()));
    await this.serialize(() => this.stopProxyNow());
    this.listeners.clear();
  }
}
