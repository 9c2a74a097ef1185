/**
 * The API contract implemented over the core modules: one object both
 * transports (HTTP/WebSocket, Electron IPC) hand commands to through
 * invoke.ts, adding no logic.
 *
 * This file is composition and lifecycle only. Each command lives, with the
 * checks of its untrusted JSON argument, in the module that owns it:
 *   commands/capture.ts   the live capture and its batched row updates
 *   commands/connections.ts  the socket timeline and stalls of the capture or a session
 *   commands/proxy.ts     the proxy's lifecycle, its CA, launching a browser
 *   commands/sessions.ts  saved sessions, HAR import/export
 *   commands/replay.ts    Sessions → Serve and Resend (replay-service.ts)
 *   commands/lab.ts       lab runs and their history (lab-service.ts)
 *   commands/rules.ts     the rules the capture proxy applies, kept in the data directory
 *   commands/breakpoints.ts  exchanges paused by breakpoint rules
 */
import { startProxy as realStartProxy, type ProxyHandle } from '../server/proxy-server.js';
import type { ProxyOptions } from '../options.js';
import { DEFAULT_BODY_CAPTURE_LIMIT, DEFAULT_PORT } from '../options.js';
import { ErrorCodes } from '../errors.js';
import {
  EXCHANGE_BATCH_MS,
  type AppStatus,
  type NetlensApi,
  type NetlensEvent,
  type NetlensEventListener,
  type ProxyConfig,
} from './contract.js';
import type { BrowserBackend, LabBackend, SessionBackend } from './backends.js';
import { noDisplayReason } from '../browser/display.js';
import { LiveCapture, type CaptureCommands } from './commands/capture.js';
import { ProxyController, type ProxyCommands, type ProxyExtras } from './commands/proxy.js';
import { Sessions, type SessionsCommands } from './commands/sessions.js';
import { Connections, type ConnectionsCommands } from './commands/connections.js';
import { createReplay, type ReplayCommands } from './commands/replay.js';
import { createLab, type LabCommands } from './commands/lab.js';
import { RulesController, type RulesCommands } from './commands/rules.js';
import { BreakpointQueue, type BreakpointCommands } from './commands/breakpoints.js';
import type { ReplayService } from './replay-service.js';
import type { LabService } from './lab-service.js';

export interface CoreServiceOptions {
  dataDir: string;
  /** Initial proxy settings (port 8080, intercept, HTTP/2, no Nagle by default). */
  proxy?: Partial<ProxyConfig>;
  version?: string;
  /** Injected in tests to feed events without a real proxy. */
  startProxy?: (options: ProxyOptions) => Promise<ProxyHandle>;
  /** The real ones come from wiring.ts `coreBackends(dataDir)`; tests pass fakes (proxy/test/api/fake-backends.ts). */
  sessions: SessionBackend;
  lab: LabBackend;
  browser: BrowserBackend;
  batchMs?: number;
  /** Extra proxy options passed through as they are (PEM texts in `upstreamCA` add to `proxy.upstreamCAFiles`). */
  proxyExtras?: ProxyExtras;
}

/** Every command but getStatus, as the modules under commands/ export them. */
type ModuleCommands = CaptureCommands &
  ConnectionsCommands &
  ProxyCommands &
  SessionsCommands &
  ReplayCommands &
  LabCommands &
  RulesCommands &
  BreakpointCommands;

/**
 * A base class typed with the modules' commands: the constructor copies them onto
 * the instance, so CoreService answers each contract command as an own property
 * (what the transports look up) without a forwarding method per command.
 */
const WithModuleCommands = class {} as new () => ModuleCommands;

export class CoreService extends WithModuleCommands implements NetlensApi {
  private readonly listeners = new Set<NetlensEventListener>();
  private readonly capture: LiveCapture;
  private readonly proxy: ProxyController;
  private readonly sessions: Sessions;
  private readonly replays: ReplayService;
  private readonly labs: LabService;
  private readonly sessionStore: SessionBackend;
  private readonly browser: BrowserBackend;
  private readonly breakpoints: BreakpointQueue;

  constructor(private readonly options: CoreServiceOptions) {
    super();
    const emit = (e: NetlensEvent) => this.emit(e);
    const { dataDir } = options;
    this.breakpoints = new BreakpointQueue(emit);
    // Every proxy the core starts parks its paused exchanges in the one queue the API serves.
    const extras = { ...options.proxyExtras, breakpoints: this.breakpoints.registry };
    const startProxy = options.startProxy ?? realStartProxy;
    this.sessionStore = options.sessions;
    this.browser = options.browser;
    this.capture = new LiveCapture(emit, options.batchMs ?? EXCHANGE_BATCH_MS);
    const rules = new RulesController(dataDir, options.proxyExtras?.rules);
    this.proxy = new ProxyController({
      dataDir,
      config: {
        port: DEFAULT_PORT,
        intercept: true,
        http2: true,
        nagle: false,
        upstreamCAFiles: [],
        insecureUpstream: false,
        bodyCaptureLimit: DEFAULT_BODY_CAPTURE_LIMIT,
        ...options.proxy,
      },
      // The capture proxy only: replay and lab proxies run without the app's rules.
      extras: { ...extras, rules: rules.holder },
      startProxy,
      browser: this.browser,
      onProxyEvent: (e) => this.capture.onProxyEvent(e),
      emit,
    });
    const captured = () => this.capture.exchanges();
    // The capture's timeline: since the last clear, from the proxies that ran since (restarts included).
    const timeline = () => this.proxy.timelineLog(this.capture.since);
    const lab = createLab(options.lab, dataDir, this.proxy, emit, () => rules.holder.file);
    const labHarFile = (args: unknown) => lab.service.harFile(args, 'openLabSession');
    this.sessions = new Sessions({ sessions: this.sessionStore, captured, timeline, emit, labHarFile });
    const connections = new Connections({ timeline, captured, sessions: this.sessionStore });
    const replay = createReplay({ dataDir, sessions: this.sessionStore, startProxy, extras, proxy: this.proxy, emit });
    this.replays = replay.service;
    this.labs = lab.service;
    Object.assign(this, this.capture.commands, connections.commands, this.proxy.commands);
    Object.assign(this, this.sessions.commands, replay.commands, lab.commands, rules.commands, this.breakpoints.commands);
  }

  subscribe(listener: NetlensEventListener): () => void {
    this.listeners.add(listener);
    // Each subscriber is a UI that can resume pauses; when the last one goes, nothing stays paused.
    const leave = this.breakpoints.watch();
    return () => {
      if (this.listeners.delete(listener)) leave();
    };
  }

  /**
   * Continues every paused exchange unchanged; returns how many. For a host whose subscription
   * outlives its window (Electron's main process): when the window closes nobody can resume them.
   */
  releaseBreakpoints(): number {
    return this.breakpoints.releaseAll();
  }

  private emit(event: NetlensEvent): void {
    for (const listener of this.listeners) {
      try {
        listener(event);
      } catch (err) {
        const why = (err as Error)?.stack ?? err;
        process.emitWarning(`Netlens API listener threw on "${event.type}": ${why}`, { code: ErrorCodes.LISTENER_FAILED });
      }
    }
  }

  async getStatus(): Promise<AppStatus> {
    const features = {
      sessions: this.sessionStore.persistent,
      lab: this.labs.available,
      browser: this.browser.available,
      replay: true,
      display: !noDisplayReason(),
    };
    return {
      version: this.options.version ?? '0.0.0',
      dataDir: this.options.dataDir,
      proxy: await this.proxy.statusWithCA(),
      features,
      exchangeCount: this.capture.count,
    };
  }

  /** Stops the proxy, cancels lab runs, closes launched browsers. */
  async close(): Promise<void> {
    this.breakpoints.close();
    this.capture.close();
    this.sessions.close();
    this.labs.close();
    await this.replays.close();
    await this.proxy.close();
    this.listeners.clear();
  }
}
