import type { ExchangeSummary, SessionInfo, SessionPage } from '../../../proxy/src/api/contract';

/**
 * What Traffic and Waterfall show: the live capture or an opened session (its rows; details come from the core).
 * Its own module so the views that take a Dataset need not import App.tsx, which imports them.
 */
export type Dataset = { kind: 'live' } | { kind: 'session'; info: SessionInfo; rows: ExchangeSummary[]; pages: SessionPage[] };
