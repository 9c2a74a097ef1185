/**
 * The live capture's rows in the renderer: batched upserts by id, in arrival
 * order. Immutable (a new array per batch) so React re-renders on change; one
 * copy per ~75 ms batch stays cheap even at 100,000 rows.
 */
import type { ExchangeSummary } from '../../../proxy/src/api/contract';

export interface RowsState {
  rows: ExchangeSummary[];
  index: Map<string, number>;
}

export const EMPTY_ROWS: RowsState = { rows: [], index: new Map() };

export function upsertRows(state: RowsState, items: readonly ExchangeSummary[]): RowsState {
  if (items.length === 0) return state;
  const rows = state.rows.slice();
  const index = new Map(state.index);
  for (const item of items) {
    const at = index.get(item.id);
    if (at === undefined) {
      index.set(item.id, rows.length);
      rows.push(item);
    } else if (!(rows[at]!.state !== 'pending' && item.state === 'pending')) {
      // A late "pending" update never overwrites a finished row.
      rows[at] = item;
    }
  }
  return { rows, index };
}

export function rowsFrom(items: readonly ExchangeSummary[]): RowsState {
  return upsertRows(EMPTY_ROWS, items);
}

/**
 * The capture as listed on (re)connecting, merged with the rows events brought meanwhile: the list's order, then rows
 * it does not have. The list was taken at one moment, and an exchange's completion may have arrived over the event
 * socket after that moment but before the list did: a row finished by an event is kept over the list's pending copy
 * (the list used to win, and such a row stayed without a response until the next reconnect).
 */
export function mergeListed(state: RowsState, listed: readonly ExchangeSummary[]): RowsState {
  return upsertRows(rowsFrom(listed), state.rows);
}
