/**
 * Where the selected exchange's details come from: the live proxy or an opened
 * session. Both ask the core one exchange at a time; the Details pane does not
 * care which. Sessions can also hand over a value Details shows cut, whole.
 */
import type { BodyView, ConnectionsView, ExchangeDetail, SessionField } from '../../../../proxy/src/api/contract';
import { api } from '../../api';
import { harEntryIndex } from '../../../../proxy/src/api/har-row';
import { base64ToBytes } from '../../lib/format';

export interface ExchangeSource {
  /** Distinguishes sources so cached details are not mixed up. */
  key: string;
  detail(id: string): Promise<ExchangeDetail>;
  body(id: string, side: 'request' | 'response'): Promise<BodyView>;
  /** The connections this exchange used, with their other exchanges and stalls (the Connection tab). */
  connections(id: string): Promise<ConnectionsView>;
  /** The whole value of a field `detail` cut, as a Blob (fetched in chunks); absent when nothing is ever cut. */
  fullValue?(id: string, field: SessionField, onProgress?: (done: number, total: number) => void): Promise<Blob>;
}

export const liveSource: ExchangeSource = {
  key: 'live',
  detail: (id) => api.getExchange({ id }),
  body: (id, side) => api.getExchangeBody({ id, side }),
  connections: (id) => api.getConnections({ exchangeId: id }),
};

function entryIndex(id: string): number {
  const index = harEntryIndex(id);
  if (index < 0) throw new Error(`No entry ${id} in this session`);
  return index;
}

/** An opened session: row `h<i>` is entry `i`, read by the core when shown. */
export function sessionSource(sessionId: string): ExchangeSource {
  return {
    key: `session:${sessionId}`,
    detail: async (id) => api.getSessionEntry({ id: sessionId, index: entryIndex(id) }),
    body: async (id, side) => api.getSessionBody({ id: sessionId, index: entryIndex(id), side }),
    connections: (id) => api.getConnections({ sessionId, exchangeId: id }),
    fullValue: async (id, field, onProgress) => {
      const index = entryIndex(id);
      // Chunks become Blob parts (kept by the browser outside the JS heap): the value is never one string here.
      const parts: Blob[] = [];
      let offset = 0;
      for (;;) {
        const chunk = await api.getSessionField({ id: sessionId, index, field, offset });
        // Binary bodies come as base64 in whole 4-character groups: each chunk decodes on its own.
        parts.push(new Blob([chunk.encoding === 'base64' ? (base64ToBytes(chunk.text) as Uint8Array<ArrayBuffer>) : chunk.text]));
        offset = chunk.offset + chunk.text.length;
        onProgress?.(offset, chunk.totalChars);
        if (chunk.done || chunk.text.length === 0) break;
      }
      return new Blob(parts);
    },
  };
}
