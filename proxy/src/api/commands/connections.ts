/**
 * getConnections: the socket timeline and its stalls, of the live capture (the
 * proxy's timeline since the capture was last cleared) or of a saved session
 * (its `log._connections`), in the row ids the UI lists (connections-view.ts).
 *
 * A session's timeline tags events with the recording's exchange ids; its rows are
 * `h<i>`. The map between them needs every entry's `_exchangeId`, read once per
 * session: a request for the whole view re-reads it (a recording grows), a request
 * for one exchange (the Connection tab, one per click) uses the last one read.
 */
import type { Exchange } from '../../model.js';
import type { TimelineLog } from '../../timeline/types.js';
import { ErrorCodes, NetlensError } from '../../errors.js';
import type { CommandArgs, ConnectionsView, NetlensApi } from '../contract.js';
import type { SessionBackend } from '../backends.js';
import { connectionsView } from '../connections-view.js';
import { harEntryIndex } from '../har-row.js';
import { READ_CAP } from '../session-view.js';
import { obj, str } from './args.js';

export type ConnectionsCommands = Pick<NetlensApi, 'getConnections'>;

export interface ConnectionsDeps {
  /** The live capture's timeline (undefined: no proxy ran, or its timeline is off). */
  timeline: () => TimelineLog | undefined;
  captured: () => Exchange[];
  sessions: SessionBackend;
}

/** getConnections: `{ sessionId?, exchangeId? }`. */
export function connectionsArgs(args: unknown): { sessionId?: string; exchangeId?: string } {
  const a = obj(args, 'getConnections');
  return {
    ...(a.sessionId === undefined ? {} : { sessionId: str(a, 'sessionId', 'getConnections', 500) }),
    ...(a.exchangeId === undefined ? {} : { exchangeId: str(a, 'exchangeId', 'getConnections', 200) }),
  };
}

interface SessionMap {
  id: string;
  timeline: unknown;
  /** Recording exchange id → row id. */
  rows: Map<string, string>;
  /** Per entry: its client and upstream connection ids. */
  connections: string[][];
}

const asString = (v: unknown) => (typeof v === 'string' ? v : undefined);

const NO_PROXY_NOTE = 'No socket timeline yet: start the proxy (its timeline is on by default) and send traffic through it.';

export class Connections {
  private last: Promise<SessionMap> | undefined;

  constructor(private readonly deps: ConnectionsDeps) {}

  private async sessionMap(id: string, fresh: boolean): Promise<SessionMap> {
    const cached = this.last;
    if (!fresh && cached && (await cached.catch(() => undefined))?.id === id) return cached;
    const next = (async () => {
      const { entries } = await this.deps.sessions.entries(id);
      const rows = new Map<string, string>();
      const connections: string[][] = [];
      let i = 0;
      for await (const e of entries.all(READ_CAP)) {
        const o = (e ?? {}) as Record<string, unknown>;
        const x = asString(o._exchangeId);
        if (x !== undefined) rows.set(x, `h${i}`);
        connections.push(
          [asString(o._connectionId) ?? asString(o._clientConnection), asString(o.connection)].filter((c): c is string => !!c),
        );
        i++;
      }
      return { id, timeline: entries.timeline, rows, connections };
    })();
    this.last = next;
    next.catch(() => this.last === next && (this.last = undefined));
    return next;
  }

  private live(exchangeId: string | undefined): ConnectionsView {
    const log = this.deps.timeline();
    const exchanges = this.deps.captured();
    const ids = new Set(exchanges.map((x) => x.id));
    const rowOf = (x: string) => (ids.has(x) ? x : undefined);
    let only: { rowId: string; connectionIds: string[] } | undefined;
    if (exchangeId !== undefined) {
      const x = exchanges.find((e) => e.id === exchangeId);
      if (!x)
        throw new NetlensError(
          ErrorCodes.NOT_FOUND,
          `No finished exchange "${exchangeId}" in the live capture (it may be in flight or cleared).`,
        );
      only = { rowId: x.id, connectionIds: [x.clientConnectionId, x.upstreamConnectionId].filter((c): c is string => !!c) };
    }
    const view = connectionsView(log ?? {}, { rowOf, only });
    if (!log) view.note = NO_PROXY_NOTE;
    return view;
  }

  private async session(sessionId: string, exchangeId: string | undefined): Promise<ConnectionsView> {
    const map = await this.sessionMap(sessionId, exchangeId === undefined);
    const rowOf = (x: string) => map.rows.get(x);
    let only: { rowId: string; connectionIds: string[] } | undefined;
    if (exchangeId !== undefined) {
      const index = harEntryIndex(exchangeId);
      if (index < 0 || index >= map.connections.length) {
        throw new NetlensError(ErrorCodes.NOT_FOUND, `Session ${sessionId} has no row "${exchangeId}" (rows are h0, h1, …).`);
      }
      only = { rowId: exchangeId, connectionIds: map.connections[index]! };
    }
    return connectionsView(map.timeline ?? {}, { rowOf, only });
  }

  readonly commands: ConnectionsCommands = {
    getConnections: async (args: CommandArgs<'getConnections'>) => {
      const { sessionId, exchangeId } = connectionsArgs(args);
      return sessionId === undefined ? this.live(exchangeId) : this.session(sessionId, exchangeId);
    },
  };
}
