/**
 * The live capture: the exchanges seen by the proxy the core started, as rows
 * the UI lists. The proxy's event stream becomes row updates coalesced per id
 * and flushed at most every `batchMs` (one `exchanges` event per flush).
 * Commands: listExchanges, getExchange, getExchangeBody, clearExchanges.
 */
import { performance } from 'node:perf_hooks';
import type { Exchange, ProxyEvent } from '../../model.js';
import { ErrorCodes, NetlensError } from '../../errors.js';
import type { BodyView, CommandArgs, ExchangeDetail, ExchangeSummary, NetlensApi, NetlensEvent } from '../contract.js';
import { exchangeDetail, exchangeSummary, pendingSummary, withResponseHead } from '../summary.js';
import { bodyView } from '../body-view.js';
import { bad, obj, str } from './args.js';

interface Row {
  summary: ExchangeSummary;
  exchange?: Exchange;
}

export type CaptureCommands = Pick<NetlensApi, 'listExchanges' | 'getExchange' | 'getExchangeBody' | 'clearExchanges'>;

/** getExchange / getExchangeBody: `{ id }` of a row of the live capture. */
export function exchangeIdArg(args: unknown, command: string): string {
  return str(obj(args, command), 'id', command, 200);
}

/** getExchangeBody: `{ side: 'request' | 'response' }`. */
export function bodySideArg(args: unknown, command: string): 'request' | 'response' {
  const side = obj(args, command).side;
  if (side !== 'request' && side !== 'response') throw bad(`${command}: "side" must be "request" or "response"`);
  return side;
}

const NO_BODY: BodyView = {
  kind: 'none',
  data: '',
  mimeType: '',
  wireSize: 0,
  decodedSize: 0,
  captureTruncated: false,
  displayTruncated: false,
};

export class LiveCapture {
  private readonly rows = new Map<string, Row>();
  private order: string[] = [];
  private readonly dirty = new Map<string, ExchangeSummary>();
  private flushTimer: NodeJS.Timeout | undefined;
  /** performance.now() of the last clearExchanges: the socket timeline of the capture starts there. */
  private clearedAt: number | undefined;

  constructor(
    private readonly emit: (event: NetlensEvent) => void,
    private readonly batchMs: number,
  ) {}

  /** Where the capture's socket timeline starts (undefined: since the proxy started). */
  get since(): number | undefined {
    return this.clearedAt;
  }

  get count(): number {
    return this.order.length;
  }

  /** Feeds one proxy event; `closed` is the proxy's business (commands/proxy.ts), not the rows'. */
  onProxyEvent(e: ProxyEvent): void {
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

  private row(args: unknown, command: string): Row {
    const id = exchangeIdArg(args, command);
    const row = this.rows.get(id);
    if (!row) throw new NetlensError(ErrorCodes.NOT_FOUND, `No exchange "${id}" in the live capture (it may have been cleared).`);
    return row;
  }

  /** The finished exchanges, in arrival order (what saveSession and exportHar write). */
  exchanges(): Exchange[] {
    const out: Exchange[] = [];
    for (const id of this.order) {
      const x = this.rows.get(id)?.exchange;
      if (x) out.push(x);
    }
    return out;
  }

  readonly commands: CaptureCommands = {
    listExchanges: async () => this.order.map((id) => this.rows.get(id)!.summary),

    getExchange: async (args: CommandArgs<'getExchange'>): Promise<ExchangeDetail> => {
      const row = this.row(args, 'getExchange');
      if (!row.exchange) {
        return { summary: row.summary, request: { httpVersion: row.summary.protocol, headers: [], bodySize: -1, bodyTruncated: false } };
      }
      return exchangeDetail(row.exchange);
    },

    getExchangeBody: async (args: CommandArgs<'getExchangeBody'>): Promise<BodyView> => {
      const row = this.row(args, 'getExchangeBody');
      const side = bodySideArg(args, 'getExchangeBody');
      const x = row.exchange;
      if (!x) return { ...NO_BODY };
      return side === 'request'
        ? await bodyView(x.request.body, x.request.headers)
        : await bodyView(x.response?.body, x.response?.headers ?? []);
    },

    clearExchanges: async () => {
      const cleared = this.order.length;
      this.rows.clear();
      this.order = [];
      this.dirty.clear();
      this.clearedAt = performance.now();
      this.emit({ type: 'exchanges-cleared' });
      return { cleared };
    },
  };

  close(): void {
    clearTimeout(this.flushTimer);
  }
}
