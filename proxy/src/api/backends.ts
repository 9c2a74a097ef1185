/**
 * The parts of the core that core-service.ts delegates to: session storage
 * (proxy/src/sessions, proxy/src/har), the lab (proxy/src/lab) and browser
 * launch (proxy/src/browser). Interfaces only: wiring.ts `coreBackends` gives
 * the real ones, tests pass fakes (proxy/test/api/fake-backends.ts).
 */
import type { Exchange } from '../model.js';
import type { BrowserInfo, SessionInfo } from './contract.js';
import type { LabConfig, LabProgress, LabResult } from '../lab/types.js';
import type { HarLog, LooseHarEntry, LooseHarPage } from '../har/types.js';
import type { TimelineLog } from '../timeline/types.js';

/** A session's whole log (replay needs every entry). */
export interface StoredSession {
  info: SessionInfo;
  log: HarLog;
}

/**
 * A session read entry by entry (sessions/entry-file.ts for the store): what the
 * UI shows of a session never needs the whole log in memory.
 */
export interface SessionEntries {
  readonly count: number;
  readonly pages: LooseHarPage[];
  /**
   * Entry `i` (0 ≤ i < count), parsed. With `cap`, a source may cut strings longer
   * than `cap` bytes while reading and mark them (sessions/capped-json.ts `splitCut`).
   */
  entry(i: number, cap?: number): Promise<LooseHarEntry>;
  /** Every entry in order, one at a time (`cap` as for `entry`). */
  all(cap?: number): AsyncIterable<LooseHarEntry>;
  /** The log's socket timeline fields (`_connections`…; timeline/har.ts reads them), when it has them. */
  readonly timeline?: unknown;
}

export interface SessionBackend {
  /** False for a store that forgets on restart (the tests' in-memory one); the UI says so. */
  readonly persistent: boolean;
  list(): Promise<SessionInfo[]>;
  open(id: string): Promise<StoredSession>;
  entries(id: string): Promise<{ info: SessionInfo; entries: SessionEntries }>;
  /** Saves recorded exchanges as a new session, with their socket timeline (`log._connections`) when given. */
  saveCapture(name: string, exchanges: Exchange[], timeline?: TimelineLog): Promise<SessionInfo>;
  rename(id: string, name: string): Promise<SessionInfo>;
  importHar(fileName: string, text: string): Promise<SessionInfo>;
  /** Imports a lab run's HAR file (source `lab`), or returns the session an earlier call made of the same file. */
  importLabHar(file: string, name: string): Promise<SessionInfo>;
  /** HAR text of a stored session. */
  exportHar(id: string): Promise<{ fileName: string; text: string }>;
  /** HAR text of live exchanges. */
  exportCapture(exchanges: Exchange[], timeline?: TimelineLog): Promise<{ fileName: string; text: string }>;
  delete(id: string): Promise<boolean>;
}

export interface LabBackend {
  readonly available: boolean;
  /** lab/runner `runLab(config, { signal, onProgress })`. */
  run(config: LabConfig, opts: { signal: AbortSignal; onProgress: (p: LabProgress) => void }): Promise<LabResult>;
}

export interface BrowserBackend {
  readonly available: boolean;
  launch(opts: { proxyUrl: string; spkiHash: string; url?: string; dataDir: string }): Promise<BrowserInfo & { close(): Promise<void> }>;
}
