/**
 * Where the selected exchange's details come from: the live proxy (ask the core)
 * or an opened HAR (already in memory). The Details pane does not care which.
 */
import type { BodyView, ExchangeDetail, HarLog } from '../../../../proxy/src/api/contract';
import { api } from '../../api';
import { harBody, harEntryDetail, harEntryIndex } from '../../lib/har-rows';

export interface ExchangeSource {
  /** Distinguishes sources so cached details are not mixed up. */
  key: string;
  detail(id: string): Promise<ExchangeDetail>;
  body(id: string, side: 'request' | 'response'): Promise<BodyView>;
}

export const liveSource: ExchangeSource = {
  key: 'live',
  detail: (id) => api.getExchange({ id }),
  body: (id, side) => api.getExchangeBody({ id, side }),
};

/** An opened HAR: details from memory; bodies the core left out (`_bodyOmitted`) are fetched from it. */
export function harSource(key: string, log: HarLog, sessionId?: string): ExchangeSource {
  const entry = (id: string) => {
    const i = harEntryIndex(id);
    const e = log.entries[i];
    if (!e) throw new Error(`No entry ${id} in this HAR`);
    return { e, i };
  };
  return {
    key,
    detail: async (id) => {
      const { e, i } = entry(id);
      return harEntryDetail(e, i);
    },
    body: async (id, side) => {
      const { e, i } = entry(id);
      const omitted = side === 'request' ? e.request?.postData?._bodyOmitted : e.response?.content?._bodyOmitted;
      if (omitted && sessionId) return api.getSessionBody({ id: sessionId, index: i, side });
      return harBody(e, side);
    },
  };
}
