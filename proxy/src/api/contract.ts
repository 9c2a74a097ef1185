/**
 * THE typed API between the Netlens core and its UI, defined once.
 *
 * Two transports implement it and the renderer never knows which one it has:
 *  - HTTP + WebSocket (`netlens serve`, api/http-transport.ts): POST /api/<command>, events on /api/events;
 *  - Electron IPC (electron/preload.ts exposes `window.netlens` with the same shape).
 *
 * Rules that keep both transports trivial:
 *  - every command takes ONE JSON-serializable argument object (or none) and
 *    resolves to one JSON-serializable result; failures are `{ code, message }`
 *    with a stable `NL_*` code (see errors.ts);
 *  - both hand each command to api/invoke.ts, the one dispatcher (command name,
 *    argument shape, call, error mapping): a transport carries bytes and decides who may call;
 *  - events are one typed union, pushed from the core;
 *  - this file holds types plus the list of command names and nothing that
 *    needs Node or Electron, so preload/IPC code can be generated from `COMMAND_NAMES`.
 *
 * Bodies are never pushed with events (an exchange can carry megabytes): rows
 * travel as compact `ExchangeSummary`s and the UI asks for a body when it shows one.
 */
import type { ExchangeTimestamps, HttpProtocol, RuleHit, Transport } from '../model.js';
import type { Rule } from '../rules/types.js';
import type { LooseHarLog } from '../har/types.js';
import type { CellId, CellSettings, LabConfig, LabHistoryEntry, LabProgress, LabResult, LabRunComparison } from '../lab/types.js';

export type {
  CellId,
  CellResult,
  CellSettings,
  Comparison,
  LabConfig,
  LabProgress,
  LabResult,
  MetricName,
  MetricStats,
  RunMeasurement,
} from '../lab/types.js';
export type { LabHistoryEntry, LabRunComparison } from '../lab/types.js';
export type { RuleHit } from '../model.js';
export type { Action, Matcher, Rule } from '../rules/types.js';

/** A failure as it crosses the transport. */
export interface ApiErrorInfo {
  /** Stable code, e.g. `NL_NOT_FOUND` (errors.ts). */
  code: string;
  /** What happened and what to do about it, written for the user. */
  message: string;
}

/** HAR 1.2 phases in ms; -1 = not applicable; `ssl` is inside `connect`. */
export interface PhaseTimings {
  blocked: number;
  dns: number;
  connect: number;
  ssl: number;
  send: number;
  wait: number;
  receive: number;
}

/** One row of the Traffic list / Waterfall: small, no headers, no bodies. */
export interface ExchangeSummary {
  id: string;
  /** Wall clock start, ISO 8601. */
  startedDateTime: string;
  /** Same instant as epoch ms: the shared waterfall axis. */
  startTime: number;
  method: string;
  /** Cut to a few KiB for sessions (HARs from anywhere); `urlCut` then says how long it is. */
  url: string;
  urlCut?: FieldCut;
  host: string;
  /** Path and query. */
  path: string;
  /** Absent while waiting for the response head, or when no response arrived. */
  status?: number;
  statusText?: string;
  /** Response content type without parameters ('' when unknown). */
  mimeType: string;
  /** HAR `_resourceType` when the source knew it (Chrome HARs); the UI derives it otherwise. */
  resourceType?: string;
  /** Protocol the client saw, e.g. `h2`, `http/1.1`. */
  protocol: string;
  transport?: Transport;
  /** Request body bytes (-1 unknown). */
  requestSize: number;
  /** Response body bytes on the wire (-1 unknown). */
  responseSize: number;
  /** Whole exchange in ms (-1 while in flight). */
  duration: number;
  /** Absent while in flight. */
  timings?: PhaseTimings;
  state: 'pending' | 'complete' | 'error';
  error?: ApiErrorInfo;
  /** HAR `connection`: rows sharing it used one upstream connection. */
  connection?: string;
  serverIPAddress?: string;
  /** A rule answered it (HAR `_mocked`): not from the network. */
  mocked?: boolean;
}

/** A value the core cut before sending it: its whole size and the part sent, in UTF-8 bytes. */
export interface FieldCut {
  fullBytes: number;
  shownBytes: number;
}

/** Which part of a header was cut (sessions only: a HAR can hold a 95 MiB header). */
export interface HeaderCut {
  name?: FieldCut;
  value?: FieldCut;
}

export type HeaderList = Array<[name: string, value: string, cut?: HeaderCut]>;

/** One side's head in Details; `headersOmitted` counts headers past the list's cap (sessions only). */
export interface HeadDetail {
  httpVersion: string;
  headers: HeaderList;
  headersOmitted?: number;
  bodySize: number;
  bodyTruncated: boolean;
}

/** Everything about one exchange except the body bytes. */
export interface ExchangeDetail {
  summary: ExchangeSummary;
  request: HeadDetail;
  response?: HeadDetail;
  /** Client leg (browser ↔ proxy), when the source is the live proxy. */
  clientTimings?: { receiveRequest: number; proxyOverhead: number; respond: number; total: number };
  /** Raw monotonic timestamps, when the source is the live proxy. */
  timestamps?: ExchangeTimestamps;
  upstreamProtocol?: HttpProtocol;
  upstreamConnectionNew?: boolean;
  nagle?: boolean;
  retries?: number;
  tunnelBytes?: { up: number; down: number };
  websocket?: boolean;
  /** The rules that touched this exchange (HAR `_rules`), in the order they matched. */
  rules?: RuleHit[];
  /** A rule answered it: the response never came from the network (HAR `_mocked`). */
  mocked?: boolean;
}

/** A body ready to display: content-decoded (gzip/br/deflate) and possibly cut for display. */
export interface BodyView {
  /** `text`: UTF-8 text in `data`; `base64`: binary in `data`; `none`: no body. */
  kind: 'text' | 'base64' | 'none';
  data: string;
  mimeType: string;
  /** Bytes on the wire (content-encoded). */
  wireSize: number;
  /** Bytes after content decoding (of what was captured). */
  decodedSize: number;
  /** e.g. `gzip`, `br`, `deflate` when the body was decoded from it. */
  contentEncoding?: string;
  /** The proxy's capture limit cut the body: only the first part was recorded. */
  captureTruncated: boolean;
  /** `data` holds only the first part of the body (too large to display whole). */
  displayTruncated: boolean;
  /** Content decoding failed; `data` holds the raw bytes instead. */
  decodeError?: string;
}

export interface ProxyConfig {
  port: number;
  intercept: boolean;
  http2: boolean;
  nagle: boolean;
  /** Absolute paths of PEM CA files trusted for upstream TLS (private/staging CAs), besides the system roots. */
  upstreamCAFiles: string[];
  /** Do not verify upstream certificates (testing only: the UI shows a warning while it is on). */
  insecureUpstream: boolean;
  /** Bytes of each request and response body recorded (0: none, at most 64 MiB). Larger bodies are cut and marked. */
  bodyCaptureLimit: number;
}

export interface ProxyStatus {
  running: boolean;
  /** Set while the proxy listens, e.g. `{ host: '127.0.0.1', port: 8080, url: 'http://127.0.0.1:8080' }`. */
  address?: { host: string; port: number; url: string };
  config: ProxyConfig;
  /** The local CA users trust to see HTTPS. */
  ca?: { certPath: string; fingerprint: string; leafSpkiHash: string };
  /** How to trust the CA, one instruction per line. */
  trustHelp?: string;
  /** Why the proxy is not running, when it failed to start. */
  error?: ApiErrorInfo;
}

export interface AppStatus {
  version: string;
  dataDir: string;
  proxy: ProxyStatus;
  /** Optional parts of the core, present when their modules are installed. */
  /** `display`: a window can be shown here (false on Linux without $DISPLAY/$WAYLAND_DISPLAY: Launch browser then explains instead). */
  features: { sessions: boolean; lab: boolean; browser: boolean; replay: boolean; display?: boolean };
  /** Exchanges recorded by the live capture so far. */
  exchangeCount: number;
}

export interface BrowserInfo {
  pid?: number;
  /** The URL the browser opened. */
  url: string;
  /** Started without a window (no display here): it loads `url` through the proxy, nobody can see or click it. */
  headless?: boolean;
  /** What happened and what to do, for the UI to show as is (set when headless). */
  message?: string;
}

export interface SessionInfo {
  id: string;
  name: string;
  /** ISO 8601. */
  createdAt: string;
  entryCount: number;
  /** `capture`: saved from the live proxy; `import`: a HAR file from elsewhere; `lab`: a lab run's proxy-side HAR (openLabSession). */
  source: 'capture' | 'import' | 'lab';
  sizeBytes?: number;
}

/** A HAR page as the Waterfall needs it (load markers). */
export interface SessionPage {
  id: string;
  title: string;
  startedDateTime: string;
  /** ms after startedDateTime; -1 = unknown. */
  pageTimings: { onContentLoad: number; onLoad: number };
}

/**
 * An opened session, sent like the live capture: rows only (`h<i>` is entry
 * `i`), every string in them cut to a few KiB (`urlCut` marks a cut URL).
 * Details come with `getSessionEntry`, bodies with `getSessionBody`, and a
 * value Details shows cut, whole, with `getSessionField`.
 */
export interface OpenedSession {
  info: SessionInfo;
  rows: ExchangeSummary[];
  pages: SessionPage[];
}

/** A value of a session entry the page may show cut: the URL, a header's name or value, a body. */
export type SessionField =
  | { kind: 'url' | 'request-body' | 'response-body' }
  | { kind: 'request-header' | 'response-header'; header: number; part: 'name' | 'value' };

/** Part of a field's value from character `offset` (a few MiB per answer); ask again from `offset + text.length` until `done`. */
export interface SessionFieldChunk {
  text: string;
  offset: number;
  totalChars: number;
  done: boolean;
  /** The value is a binary body as base64 (whitespace removed; chunks hold whole 4-character groups). */
  encoding?: 'base64';
}

/** One cell of the lab matrix (DESIGN.md "The lab matrix"), as the UI lists it. */
export interface LabCellInfo {
  /** e.g. `proxy+h2+intercept` (lab/types.ts CellId). */
  id: CellId;
  label: string;
  settings: CellSettings;
}

export interface LabOptions {
  /** False when the lab module is not installed: the UI says so and cannot run. */
  available: boolean;
  cells: LabCellInfo[];
  defaults: LabRunConfig;
}

/** What the UI configures; the core fills in the rest (outDir, dataDir, chrome). */
export type LabRunConfig = Pick<LabConfig, 'target' | 'cells' | 'runs' | 'baseline'> & {
  /**
   * "What if" variants (docs/lab.md): each adds `<cell>~<name>` next to every ticked proxy cell. The core resolves
   * them when the run starts (names checked as `netlens lab --variant` checks them; rules by the rules validator).
   */
  variants?: LabVariantInput[];
};

/** A variant as the Lab view picks it: the app's rules at the moment the run starts, or the text of a rules file. */
export type LabVariantInput = { name: string; source: 'current' } | { name: string; source: 'file'; fileName: string; text: string };

export type LabRunState =
  | { runId: string; state: 'running'; progress?: LabProgress; completed: number; total: number }
  | { runId: string; state: 'done'; result: LabResult }
  | { runId: string; state: 'failed' | 'cancelled'; error: ApiErrorInfo; result?: LabResult };

/** One write or read on a socket (the socket timeline, docs/timings.md); `x` is the row id of its exchange. */
export interface SocketTick {
  /** Monotonic ms; `ConnectionsView.timeOrigin + t` is epoch ms, the axis of `ExchangeSummary.startTime`. */
  t: number;
  d: 'w' | 'r';
  n: number;
  x?: string;
  nagle?: boolean;
}

/** One connection the proxy owned: its client (browser ↔ proxy) or upstream (proxy ↔ origin) leg. */
export interface ConnectionLane {
  /** `c…` client leg (the entry's `_connectionId`), `u…` upstream leg (the row's `connection`). */
  id: string;
  leg: 'client' | 'upstream';
  opened: number;
  closed?: number;
  /** 'h2': an HTTP/2 session, whose events are frames handed to or received from nghttp2, not socket writes and reads. */
  framing?: 'h2';
  /** The first events, in time order (see `eventsOmitted`). */
  events: SocketTick[];
  /** Events of this connection not sent (the answer's cap); their count, not their bytes. */
  eventsOmitted: number;
  /** Exchanges (row ids) with events on it, in order, each with the span of its events. */
  exchanges: Array<{ id: string; from: number; to: number }>;
}

/** A stall the detector flagged (timeline/stalls.ts): bytes that probably waited in the kernel. */
export interface StallInfo {
  connectionId: string;
  /** Row id of the held write's exchange, when known. */
  exchangeId?: string;
  at: number;
  ms: number;
  bytes: number;
  message: string;
}

/** The socket timeline of the live capture or of a session, with its stalls, cut to a bounded size. */
export interface ConnectionsView {
  /** Epoch ms of `t = 0`. */
  timeOrigin: number;
  connections: ConnectionLane[];
  /** Connections left out by the answer's cap. */
  connectionsOmitted: number;
  /** Every stall (computed on all events, before any cut), at most `STALLS_SHOWN`. */
  stalls: StallInfo[];
  stallsOmitted: number;
  /** Stall count and time per exchange (row id). */
  stallsByExchange: Record<string, { count: number; ms: number }>;
  /**
   * `stallMs` is wall-clock time with at least one connection stalled (overlapping stalls on parallel connections
   * count once; summing them overstated it several times over on image-heavy pages).
   */
  totals: { connections: number; events: number; eventsShown: number; stalls: number; stallMs: number };
  /** Events the recorder itself dropped at its memory cap (log._connectionsDropped). */
  recorderDropped: number;
  /** Set when there is no timeline at all, saying why. */
  note?: string;
}

/**
 * An exchange a `breakpoint` rule paused (rules/breakpoints.ts): the request before it goes
 * upstream, or the response before it reaches the client. Continues unchanged at `timeoutAt`.
 */
export interface PausedBreakpoint {
  id: string;
  exchangeId: string;
  phase: 'request' | 'response';
  ruleId: string;
  method: string;
  url: string;
  status?: number;
  headers: Array<[name: string, value: string]>;
  /** UTF-8 text ('' when none); `bodyCut`: too large (or not text) to show or edit, forwarded as it is. */
  body: string;
  bodyCut: boolean;
  /** Epoch ms. */
  pausedAt: number;
  timeoutAt: number;
}

/** What continueBreakpoint changes; absent fields stay. `headers` replaces the whole list. */
export interface BreakpointEditsInfo {
  headers?: Array<[name: string, value: string]>;
  body?: string;
  /** Request breakpoints only. */
  url?: string;
  /** Response breakpoints only. */
  status?: number;
}

/** Every command: its single argument and its result. */
export interface Commands {
  getStatus: { args: void; result: AppStatus };
  startProxy: { args: Partial<ProxyConfig> | void; result: ProxyStatus };
  stopProxy: { args: void; result: ProxyStatus };
  /** Restarts the proxy with the new settings (when it runs) and remembers them. */
  configureProxy: { args: Partial<ProxyConfig>; result: ProxyStatus };
  launchBrowser: { args: { url?: string } | void; result: BrowserInfo };
  /** The local CA certificate (PEM, never the key) to download and import into a trust store. */
  getCaCertificate: { args: void; result: { fileName: string; text: string } };
  /** The live capture so far (rows only). */
  listExchanges: { args: void; result: ExchangeSummary[] };
  getExchange: { args: { id: string }; result: ExchangeDetail };
  getExchangeBody: { args: { id: string; side: 'request' | 'response' }; result: BodyView };
  clearExchanges: { args: void; result: { cleared: number } };
  listSessions: { args: void; result: SessionInfo[] };
  openSession: { args: { id: string }; result: OpenedSession };
  /** Details of entry `index` of session `id`, large values cut and marked (see api/har-row.ts for the caps). */
  getSessionEntry: { args: { id: string; index: number }; result: ExchangeDetail };
  /** A body of entry `index` of session `id`, cut for display like a live body. */
  getSessionBody: { args: { id: string; index: number; side: 'request' | 'response' }; result: BodyView };
  /** A value `getSessionEntry` cut, whole, in chunks (to save it as a file). */
  getSessionField: { args: { id: string; index: number; field: SessionField; offset?: number }; result: SessionFieldChunk };
  /**
   * The socket timeline and its stalls: of the live capture (the running proxy's, since the capture was last cleared),
   * or of session `sessionId`. With `exchangeId` (a row id): only the connections that exchange used.
   * Bounded: at most ~20,000 events and 400 connections, the rest counted as omitted.
   */
  getConnections: { args: { sessionId?: string; exchangeId?: string } | void; result: ConnectionsView };
  /** Without `id`: saves the live capture as a new session. With `id`: renames it. */
  saveSession: { args: { name: string; id?: string }; result: SessionInfo };
  importHar: { args: { fileName: string; text: string }; result: SessionInfo };
  /** Without `id`: the live capture. Returns the HAR text to download. */
  exportHar: { args: { id?: string }; result: { fileName: string; text: string } };
  deleteSession: { args: { id: string }; result: { deleted: boolean } };
  getLabOptions: { args: void; result: LabOptions };
  startLab: { args: LabRunConfig; result: { runId: string } };
  cancelLab: { args: { runId: string }; result: { cancelled: boolean } };
  /** A run of this session, or one from the history on disk (`<data>/lab/<runId>/results.json`). */
  getLabRun: { args: { runId: string }; result: LabRunState };
  /** The run history, newest first: runs in progress (ids) and finished or damaged runs on disk. */
  listLabRuns: { args: void; result: { running: string[]; runs: LabHistoryEntry[] } };
  deleteLabRun: { args: { runId: string }; result: { deleted: boolean } };
  /** Run `b` against run `a` (same target), cell by cell: ratio and Mann-Whitney p on load time and TTFB. */
  compareLabRuns: { args: { a: string; b: string }; result: LabRunComparison };
  /** One self-contained HTML file (tables, SVG charts, median-run waterfalls, machine) to download. */
  exportLabReport: { args: { runId: string }; result: { fileName: string; text: string } };
  /** A HAR the lab wrote (`RunMeasurement.browserHar` / `proxyHar`, relative to the run's directory). */
  getLabHar: { args: { runId: string; file: string }; result: LooseHarLog };
  /**
   * Stores a HAR of a lab run (usually a run's `proxyHar`, which carries the socket timeline) as a session,
   * so Traffic, Waterfall and Connections open it; asking again for the same file returns that session.
   */
  openLabSession: { args: { runId: string; file: string }; result: SessionInfo };
  /**
   * Serve session `id`: a replay proxy of its own (not the capture proxy) answers from the recording.
   * One at a time (a second start is NL_REPLAY_RUNNING). `port` default 0 = any free port.
   */
  startReplayServer: { args: { id: string; port?: number; extra?: ReplayUnmatchedPolicy }; result: ReplayServerStatus };
  /** The replay server's address and counts (also pushed as `replay-server` events while it runs). */
  replayServerStatus: { args: void; result: ReplayServerStatus };
  /** Stops it and returns its final counts; NL_REPLAY_NOT_RUNNING when none runs. */
  stopReplayServer: { args: void; result: ReplayServerStatus };
  /** Sends session `id`'s requests again (through the capture proxy when it runs, else directly) and compares each response. */
  resendSession: { args: { id: string }; result: ResendReport };
  /** The rules the capture proxy applies (docs/rules.md), with hit counts. */
  getRules: { args: void; result: RulesState };
  /** Replaces the rules (validated: NL_RULES_INVALID names the rule and field), applied at once and kept in `<dataDir>/rules.json`. */
  setRules: { args: { rules: Rule[] }; result: RulesState };
  /** A rules file's text (docs/rules.md) to replace the rules with, like setRules. */
  importRules: { args: { fileName: string; text: string }; result: RulesState };
  /** The rules as a rules file to download. */
  exportRules: { args: void; result: { fileName: string; text: string } };
  /** The exchanges breakpoint rules paused now, oldest first (also pushed as `breakpoints` events). */
  listBreakpoints: { args: void; result: PausedBreakpoint[] };
  /** Lets a paused exchange go on, with the user's edits; NL_NOT_FOUND when it already continued. */
  continueBreakpoint: { args: { id: string; edits?: BreakpointEditsInfo }; result: { continued: boolean } };
  /** The client gets a 502 with X-Netlens-Error: NL_BREAKPOINT_ABORTED; recorded with that code. */
  abortBreakpoint: { args: { id: string }; result: { aborted: boolean } };
}

/** The capture proxy's rules: the whole list in order (disabled ones too) and how often each matched. */
export interface RulesState {
  rules: Rule[];
  /** Times each rule (by id) matched since the core started; kept while a rule keeps its id across edits. */
  hits: Record<string, number>;
  /** The file the rules are kept in, once there is one. */
  file?: string;
  /** The kept file could not be loaded when the core started (the rules started empty): why. */
  loadError?: ApiErrorInfo;
}

/** Requests that match no recording: forwarded to the network, answered 404, or their connection killed. */
export type ReplayUnmatchedPolicy = 'forward' | '404' | 'kill';

/** The replay server (Sessions → Serve): running or the last one's final counts. */
export interface ReplayServerStatus {
  running: boolean;
  /** The session served (absent when none was ever started). */
  session?: { id: string; name: string };
  /** Where to point a browser or `curl -x` while it runs. */
  address?: { host: string; port: number; url: string };
  extra: ReplayUnmatchedPolicy;
  /** Replayable entries of the session. */
  recorded: number;
  /** Requests answered from the recording (`reused` of them by repeating the last recording of their request). */
  served: number;
  reused: number;
  unmatched: { forward: number; '404': number; kill: number };
  /** The first unmatched requests (at most 20). */
  unmatchedRequests: Array<{ method: string; url: string; action: ReplayUnmatchedPolicy }>;
  /** Recordings never served yet. */
  unused: number;
}

/** One side of a resent request: status, decoded body bytes, whole time in ms. */
export interface ResendSideInfo {
  status: number;
  size: number;
  time: number;
}

/** One resent request, recording (`before`) against the new response (`after`, absent when it failed). */
export interface ResendRowInfo {
  /** Entry index in the session. */
  index: number;
  method: string;
  url: string;
  before: ResendSideInfo;
  after?: ResendSideInfo;
  error?: ApiErrorInfo;
  /** What differs; time is not a change (see `slower`). Empty = unchanged. */
  changes: Array<'status' | 'size' | 'body' | 'failed'>;
  /** More than twice as slow and at least 100 ms slower. */
  slower: boolean;
}

export interface ResendReport {
  session: { id: string; name: string };
  /** `proxy`: through the capture proxy (the requests show in the live capture); `direct`: it was off. */
  via: 'proxy' | 'direct';
  rows: ResendRowInfo[];
  summary: { total: number; changed: number; failed: number; slower: number };
}

export type CommandName = keyof Commands;
export type CommandArgs<K extends CommandName> = Commands[K]['args'];
export type CommandResult<K extends CommandName> = Commands[K]['result'];

/** The runtime list of commands (what a transport exposes). Checked against `Commands` below. */
export const COMMAND_NAMES = [
  'getStatus',
  'startProxy',
  'stopProxy',
  'configureProxy',
  'getCaCertificate',
  'launchBrowser',
  'listExchanges',
  'getExchange',
  'getExchangeBody',
  'clearExchanges',
  'getConnections',
  'listSessions',
  'openSession',
  'getSessionEntry',
  'getSessionBody',
  'getSessionField',
  'saveSession',
  'importHar',
  'exportHar',
  'deleteSession',
  'getLabOptions',
  'startLab',
  'cancelLab',
  'getLabRun',
  'getLabHar',
  'openLabSession',
  'listLabRuns',
  'deleteLabRun',
  'compareLabRuns',
  'exportLabReport',
  'startReplayServer',
  'replayServerStatus',
  'stopReplayServer',
  'resendSession',
  'getRules',
  'setRules',
  'importRules',
  'exportRules',
  'listBreakpoints',
  'continueBreakpoint',
  'abortBreakpoint',
] as const satisfies readonly CommandName[];

// Compile-time check that COMMAND_NAMES lists every command of `Commands`.
type MissingCommands = Exclude<CommandName, (typeof COMMAND_NAMES)[number]>;
export const COMMAND_NAMES_COMPLETE: [MissingCommands] extends [never] ? true : MissingCommands = true;

/** Everything the core pushes. */
export type NetlensEvent =
  /** New or updated rows of the live capture (upsert by id), batched every ~75 ms. */
  | { type: 'exchanges'; items: ExchangeSummary[] }
  | { type: 'exchanges-cleared' }
  | { type: 'proxy-status'; status: ProxyStatus }
  | { type: 'lab-progress'; runId: string; progress: LabProgress }
  | { type: 'lab-finished'; run: LabRunState }
  | { type: 'sessions-changed' }
  /** The replay server started, stopped, or its counts changed (at most every ~250 ms). */
  | { type: 'replay-server'; status: ReplayServerStatus }
  /** An exchange paused at a breakpoint or resumed: the whole list of paused ones now. */
  | { type: 'breakpoints'; items: PausedBreakpoint[] };

export type NetlensEventListener = (event: NetlensEvent) => void;

/** What a transport gives the renderer (and what core-service implements). */
export type NetlensApi = {
  [K in CommandName]: (args: CommandArgs<K>) => Promise<CommandResult<K>>;
} & {
  /** Returns a function that unsubscribes. */
  subscribe(listener: NetlensEventListener): () => void;
};

/** Batching interval of exchange events: fast enough to feel live, slow enough not to flood the UI. */
export const EXCHANGE_BATCH_MS = 75;
