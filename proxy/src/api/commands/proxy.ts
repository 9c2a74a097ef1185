/**
 * The capture proxy's lifecycle: start, stop and reconfigure it (one operation
 * at a time), its status and CA, and the browser launched wired to it.
 * Commands: startProxy, stopProxy, configureProxy, getCaCertificate, launchBrowser.
 */
import type { ProxyHandle } from '../../server/proxy-server.js';
import type { ProxyOptions } from '../../options.js';
import type { ProxyEvent } from '../../model.js';
import type { Timeline } from '../../timeline/recorder.js';
import { mergeTimelineLogs } from '../../timeline/merge.js';
import type { TimelineLog } from '../../timeline/types.js';
import { ErrorCodes, NetlensError, errorCodeOf, type ErrorInfo } from '../../errors.js';
import { loadOrCreateCA } from '../../tls/ca.js';
import { trustInstructions } from '../../tls/trust.js';
import type { CommandArgs, CommandResult, NetlensApi, NetlensEvent, ProxyConfig, ProxyStatus } from '../contract.js';
import type { BrowserBackend } from '../backends.js';
import { checkPortFree, proxyConfigPatch, readCAFiles } from '../proxy-config.js';
import { obj, str } from './args.js';

export type ProxyCommands = Pick<NetlensApi, 'startProxy' | 'stopProxy' | 'configureProxy' | 'getCaCertificate' | 'launchBrowser'>;

/** Extra proxy options passed through as they are (PEM texts in `upstreamCA` add to `proxy.upstreamCAFiles`). */
export type ProxyExtras = Omit<
  ProxyOptions,
  'port' | 'intercept' | 'http2' | 'nagle' | 'dataDir' | 'insecureUpstream' | 'bodyCaptureLimit'
>;

export interface ProxyControllerDeps {
  dataDir: string;
  config: ProxyConfig;
  extras?: ProxyExtras;
  startProxy: (options: ProxyOptions) => Promise<ProxyHandle>;
  browser: BrowserBackend;
  /** Every event of the running proxy (the live capture's feed). */
  onProxyEvent: (e: ProxyEvent) => void;
  emit: (event: NetlensEvent) => void;
}

/** launchBrowser: `{ url? }`, the page to open. */
export function launchUrlArg(args: unknown): string | undefined {
  const a = obj(args, 'launchBrowser');
  return a.url === undefined ? undefined : str(a, 'url', 'launchBrowser', 8192);
}

/** Proxy runs whose socket timelines the live capture keeps (a settings change is a new run). */
const MAX_TIMELINES = 4;

export class ProxyController {
  private proxy: ProxyHandle | undefined;
  private unsubscribe: (() => void) | undefined;
  private error: ErrorInfo | undefined;
  private op: Promise<unknown> = Promise.resolve();
  private readonly browsers = new Set<{ close(): Promise<void> }>();
  /**
   * The socket timelines of this proxy's runs, oldest first, each with when it stopped: the live capture
   * spans restarts (a settings change restarts the proxy), so its lanes do too. At most
   * MAX_TIMELINES are kept (each is capped in events by the recorder).
   */
  private timelines: { timeline: Timeline; stoppedAt?: number }[] = [];
  config: ProxyConfig;

  constructor(private readonly deps: ProxyControllerDeps) {
    this.config = deps.config;
  }

  /** The running proxy's address and CA, for the replay proxy to chain to. */
  get running(): ProxyHandle | undefined {
    return this.proxy;
  }

  /**
   * The live capture's socket timeline (getConnections, saveSession): the proxies that ran since
   * `since` (performance.now() of the capture's last clear), merged; undefined when none recorded one.
   */
  timelineLog(since?: number): TimelineLog | undefined {
    if (since !== undefined) this.timelines = this.timelines.filter((t) => t.stoppedAt === undefined || t.stoppedAt >= since);
    return mergeTimelineLogs(this.timelines.map((t) => t.timeline.toLog(since)));
  }

  /** Upstream CAs: PEM texts given to the core plus the configured files, read now (a renewed file is picked up). */
  upstreamCA(): string[] {
    return [...(this.deps.extras?.upstreamCA ?? []), ...readCAFiles(this.config.upstreamCAFiles)];
  }

  status(): ProxyStatus {
    const p = this.proxy;
    return {
      running: Boolean(p),
      address: p?.address,
      config: { ...this.config },
      ca: p ? { certPath: p.ca.certPath, fingerprint: p.ca.fingerprint, leafSpkiHash: p.ca.leafSpkiHash } : undefined,
      trustHelp: p ? trustInstructions(p.ca.certPath, p.ca.leafSpkiHash, p.address) : undefined,
      error: this.error,
    };
  }

  /** The status with the CA shown even while the proxy is off: users trust it before browsing. */
  async statusWithCA(): Promise<ProxyStatus> {
    const proxy = this.status();
    if (proxy.ca) return proxy;
    try {
      const ca = await loadOrCreateCA(this.deps.dataDir);
      proxy.ca = { certPath: ca.certPath, fingerprint: ca.fingerprint, leafSpkiHash: ca.leafSpkiHash };
      proxy.trustHelp = trustInstructions(ca.certPath, ca.leafSpkiHash, { host: '127.0.0.1', port: this.config.port });
    } catch {
      // The CA store error surfaces when the proxy starts; status stays usable.
    }
    return proxy;
  }

  private emitStatus(): ProxyStatus {
    const status = this.status();
    this.deps.emit({ type: 'proxy-status', status });
    return status;
  }

  private onEvent(e: ProxyEvent): void {
    if (e.type === 'closed' && this.proxy) {
      this.proxy = undefined;
      this.emitStatus();
    }
    this.deps.onProxyEvent(e);
  }

  /** Proxy start/stop calls run one after another, never interleaved. */
  private serialize<T>(op: () => Promise<T>): Promise<T> {
    const next = this.op.then(op, op);
    this.op = next.catch(() => undefined);
    return next;
  }

  private async stopNow(): Promise<void> {
    const p = this.proxy;
    this.proxy = undefined;
    const last = this.timelines[this.timelines.length - 1];
    if (p && last && last.timeline === p.timeline) last.stoppedAt = performance.now();
    this.unsubscribe?.();
    this.unsubscribe = undefined;
    if (p) await p.stop();
  }

  private async startNow(): Promise<ProxyStatus> {
    await this.stopNow();
    this.error = undefined;
    try {
      const { upstreamCAFiles, ...config } = this.config;
      // Read at each start (not only when configured): a CA file renewed on disk is picked up by a restart.
      const upstreamCA = [...(this.deps.extras?.upstreamCA ?? []), ...readCAFiles(upstreamCAFiles)];
      const handle = await this.deps.startProxy({ ...this.deps.extras, ...config, upstreamCA, dataDir: this.deps.dataDir });
      this.proxy = handle;
      if (handle.timeline) this.timelines = [...this.timelines, { timeline: handle.timeline }].slice(-MAX_TIMELINES);
      this.unsubscribe = handle.events.subscribe((e) => this.onEvent(e));
    } catch (err) {
      const message = (err as Error)?.message;
      this.error = { code: errorCodeOf(err, ErrorCodes.LISTEN_FAILED), message };
      this.emitStatus();
      throw new NetlensError(this.error.code, `The proxy could not start on port ${this.config.port}: ${message}`);
    }
    return this.emitStatus();
  }

  readonly commands: ProxyCommands = {
    startProxy: async (args: CommandArgs<'startProxy'>) => {
      const patch = proxyConfigPatch(obj(args, 'startProxy'), 'startProxy');
      return this.serialize(async () => {
        this.config = { ...this.config, ...patch };
        return this.startNow();
      });
    },

    stopProxy: async () =>
      this.serialize(async () => {
        await this.stopNow();
        return this.emitStatus();
      }),

    configureProxy: async (args: CommandArgs<'configureProxy'>) => {
      const patch = proxyConfigPatch(obj(args, 'configureProxy'), 'configureProxy');
      return this.serialize(async () => {
        // A taken port is refused before anything changes: the running proxy keeps running as it was.
        const current = this.proxy ? this.proxy.address.port : this.config.port;
        if (patch.port !== undefined && patch.port !== current) await checkPortFree(patch.port);
        this.config = { ...this.config, ...patch };
        if (this.proxy) return this.startNow();
        return this.emitStatus();
      });
    },

    getCaCertificate: async (): Promise<CommandResult<'getCaCertificate'>> => {
      // The certificate only: the key never leaves the data directory.
      const ca = this.proxy?.ca ?? (await loadOrCreateCA(this.deps.dataDir));
      return { fileName: 'netlens-ca.pem', text: ca.certPem };
    },

    launchBrowser: async (args: CommandArgs<'launchBrowser'>): Promise<CommandResult<'launchBrowser'>> => {
      const url = launchUrlArg(args);
      if (!this.proxy) throw new NetlensError(ErrorCodes.LISTEN_FAILED, 'Start the proxy first: the browser is launched wired to it.');
      const p = this.proxy;
      const b = await this.deps.browser.launch({ proxyUrl: p.address.url, spkiHash: p.ca.leafSpkiHash, url, dataDir: this.deps.dataDir });
      this.browsers.add(b);
      return { pid: b.pid, url: b.url, ...(b.headless ? { headless: true } : {}), ...(b.message ? { message: b.message } : {}) };
    },
  };

  /** Closes launched browsers, then stops the proxy (after any start or stop under way). */
  async close(): Promise<void> {
    await Promise.allSettled([...this.browsers].map((b) => b.close()));
    await this.serialize(() => this.stopNow());
  }
}
