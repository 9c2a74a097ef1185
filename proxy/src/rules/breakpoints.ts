/**
 * The paused exchanges of `breakpoint` actions: the proxy parks an exchange here before
 * its request goes upstream or before its response reaches the client, and whoever
 * watches (the UI through the API) lists, edits, continues or aborts it.
 *
 * A pause never outlives its timeout (it continues unchanged), nor the last watcher
 * (the UI closing continues everything unchanged): a forgotten breakpoint cannot hang
 * a browser for good. Each pause is its own promise, so other exchanges (other
 * connections, other HTTP/2 streams of the same connection) keep flowing.
 */
import type { RawHeaders } from '../model.js';
import { ErrorCodes, NetlensError } from '../errors.js';

/** Bodies shown and editable in a pause: a larger one is forwarded as it is (`bodyCut`). */
export const BREAKPOINT_BODY_LIMIT = 1024 * 1024;
/** Default and bounds of the auto-continue timeout. */
export const BREAKPOINT_DEFAULT_TIMEOUT_MS = 60_000;
export const BREAKPOINT_MAX_TIMEOUT_MS = 10 * 60_000;
/** At most this many exchanges paused at once; later ones continue without pausing (recorded as `skipped`). */
export const BREAKPOINT_MAX_PAUSED = 200;

export type BreakpointPhase = 'request' | 'response';
export type BreakpointOutcome = 'continued' | 'aborted' | 'timeout' | 'released' | 'client-closed' | 'skipped';

/** What a paused exchange shows: the request, or the response about to reach the client. */
export interface PausedExchange {
  /** The breakpoint's id (`bp1`…), what continue/abort take. */
  id: string;
  /** The exchange's id in the live capture. */
  exchangeId: string;
  phase: BreakpointPhase;
  ruleId: string;
  method: string;
  url: string;
  /** The response status (response phase only). */
  status?: number;
  headers: RawHeaders;
  /** The body as UTF-8 text ('' when none); cut to BREAKPOINT_BODY_LIMIT when `bodyCut`. */
  body: string;
  /** The body was larger than the limit (or unreadable as a whole): it is forwarded unchanged, body edits are refused. */
  bodyCut: boolean;
  /** Epoch ms when it paused and when it continues by itself. */
  pausedAt: number;
  timeoutAt: number;
}

/** What the user changed; absent fields stay as they were. */
export interface BreakpointEdits {
  /** The whole header list (replaces every header). */
  headers?: RawHeaders;
  /** The whole body as UTF-8 text. */
  body?: string;
  /** Request phase: the URL the request goes to (http or https). */
  url?: string;
  /** Response phase: the status sent to the client. */
  status?: number;
}

export interface Resumed {
  outcome: BreakpointOutcome;
  edits?: BreakpointEdits;
}

export type BreakpointChange = { type: 'paused'; item: PausedExchange } | { type: 'resumed'; id: string; outcome: BreakpointOutcome };

interface Pending {
  item: PausedExchange;
  finish(r: Resumed): void;
}

export class Breakpoints {
  private readonly paused = new Map<string, Pending>();
  private next = 1;
  private watchers = 0;
  /** Told of every pause and resume (the API's event feed). */
  onChange: ((c: BreakpointChange) => void) | undefined;

  list(): PausedExchange[] {
    return [...this.paused.values()].map((p) => p.item);
  }

  get size(): number {
    return this.paused.size;
  }

  /**
   * Parks an exchange until continue/abort, its timeout, the last watcher leaving or `gone`
   * (the client closed). Resolves with what to do; never rejects.
   */
  pause(
    item: Omit<PausedExchange, 'id' | 'pausedAt' | 'timeoutAt'>,
    timeoutMs: number,
    gone: (cb: () => void) => () => void,
  ): Promise<Resumed> {
    if (this.paused.size >= BREAKPOINT_MAX_PAUSED) return Promise.resolve({ outcome: 'skipped' });
    const wait = Math.min(Math.max(0, timeoutMs), BREAKPOINT_MAX_TIMEOUT_MS);
    const now = Date.now();
    const full: PausedExchange = { ...item, id: `bp${this.next++}`, pausedAt: now, timeoutAt: now + wait };
    return new Promise<Resumed>((resolve) => {
      const finish = (r: Resumed) => {
        if (!this.paused.delete(full.id)) return;
        clearTimeout(timer);
        stopWatching();
        resolve(r);
        this.onChange?.({ type: 'resumed', id: full.id, outcome: r.outcome });
      };
      const timer = setTimeout(() => finish({ outcome: 'timeout' }), wait);
      const stopWatching = gone(() => finish({ outcome: 'client-closed' }));
      this.paused.set(full.id, { item: full, finish });
      this.onChange?.({ type: 'paused', item: full });
    });
  }

  continue(id: string, edits?: BreakpointEdits): PausedExchange {
    const p = this.get(id);
    if (edits) checkEdits(p.item, edits);
    p.finish({ outcome: 'continued', ...(edits && hasEdits(edits) ? { edits } : {}) });
    return p.item;
  }

  abort(id: string): PausedExchange {
    const p = this.get(id);
    p.finish({ outcome: 'aborted' });
    return p.item;
  }

  /** Continues every paused exchange unchanged (the UI went away, the proxy stops); returns how many were paused. */
  releaseAll(): number {
    const all = [...this.paused.values()];
    for (const p of all) p.finish({ outcome: 'released' });
    return all.length;
  }

  /** A watcher (a UI) arrived; the returned function is its leaving: the last one to leave releases every pause. */
  watch(): () => void {
    this.watchers++;
    let left = false;
    return () => {
      if (left) return;
      left = true;
      if (--this.watchers === 0) this.releaseAll();
    };
  }

  private get(id: string): Pending {
    const p = this.paused.get(id);
    if (!p) {
      throw new NetlensError(
        ErrorCodes.NOT_FOUND,
        `No paused exchange "${id}": it continued already (timeout, or another window resumed it). Refresh the breakpoint list.`,
      );
    }
    return p;
  }
}

function hasEdits(e: BreakpointEdits): boolean {
  return e.headers !== undefined || e.body !== undefined || e.url !== undefined || e.status !== undefined;
}

/** Refuses edits that cannot apply, before the exchange moves on (so the user can fix them). */
function checkEdits(item: PausedExchange, e: BreakpointEdits): void {
  const bad = (m: string) => new NetlensError(ErrorCodes.API_BAD_REQUEST, `continueBreakpoint: ${m}`);
  if (e.body !== undefined && item.bodyCut) {
    throw bad(`the body is larger than ${BREAKPOINT_BODY_LIMIT} bytes and cannot be edited here; continue without a body edit`);
  }
  if (e.url !== undefined) {
    if (item.phase !== 'request') throw bad('"url" can only be edited on a request breakpoint');
    if (!URL.canParse(e.url) || !/^https?:$/.test(new URL(e.url).protocol)) throw bad(`"url" must be an http:// or https:// URL`);
  }
  if (e.status !== undefined) {
    if (item.phase !== 'response') throw bad('"status" can only be edited on a response breakpoint');
    if (!Number.isInteger(e.status) || e.status < 200 || e.status > 999) throw bad('"status" must be an integer from 200 to 999');
  }
  for (const h of e.headers ?? []) {
    const [k, v] = h;
    if (!/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(k)) throw bad(`header name "${k.slice(0, 100)}" is not a valid token`);
    if (/[\r\n\0]/.test(v)) throw bad(`the value of header "${k}" must not hold a line break`);
  }
}
