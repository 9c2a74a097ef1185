/**
 * The socket timeline of what Traffic shows (live capture or opened session), fetched
 * with getConnections while a view that draws it is open. The live capture is fetched
 * again when its finished rows change, at most every REFRESH_MS.
 */
import { useEffect, useRef, useState } from 'react';
import type { ConnectionsView } from '../../../../proxy/src/api/contract';
import { api, errorMessage } from '../../api';
import type { Dataset } from '../../lib/dataset';

const REFRESH_MS = 500;

export interface ConnectionsState {
  view?: ConnectionsView;
  error?: string;
  loading: boolean;
}

/** `version` changes when the rows change (e.g. the number of finished rows); `enabled` false fetches nothing. */
export function useConnections(dataset: Dataset, version: number, enabled: boolean): ConnectionsState {
  const [state, setState] = useState<ConnectionsState>({ loading: false });
  const sessionId = dataset.kind === 'session' ? dataset.info.id : undefined;
  // Throttle, not debounce: under steady traffic a fetch still happens every REFRESH_MS.
  const lastFetch = useRef(0);
  useEffect(() => {
    setState({ loading: false });
  }, [sessionId]);
  useEffect(() => {
    if (!enabled) return;
    let live = true;
    const timer = setTimeout(
      () => {
        lastFetch.current = Date.now();
        setState((s) => ({ ...s, loading: true }));
        api.getConnections(sessionId ? { sessionId } : {}).then(
          (view) => live && setState({ view, loading: false }),
          (err) => live && setState({ error: errorMessage(err), loading: false }),
        );
      },
      sessionId ? 0 : Math.max(0, lastFetch.current + REFRESH_MS - Date.now()),
    );
    return () => {
      live = false;
      clearTimeout(timer);
    };
  }, [enabled, sessionId, version]);
  return state;
}
