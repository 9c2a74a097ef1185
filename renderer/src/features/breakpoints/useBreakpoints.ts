/**
 * The paused exchanges, kept current by `breakpoints` events and reloaded whenever the
 * connection to the core (re)opens, so a pause made while disconnected is not missed.
 */
import { useEffect, useState } from 'react';
import type { PausedBreakpoint } from '../../../../proxy/src/api/contract';
import { api } from '../../api';

export function useBreakpoints(): PausedBreakpoint[] {
  const [items, setItems] = useState<PausedBreakpoint[]>([]);
  useEffect(() => {
    let live = true;
    const load = () =>
      api.listBreakpoints().then(
        (list) => live && setItems(list),
        () => undefined,
      );
    void load();
    const off = api.subscribe((e) => {
      if (e.type === 'breakpoints') setItems(e.items);
    });
    const offConn = api.onConnection((c) => {
      if (c === 'open') void load();
    });
    return () => {
      live = false;
      off();
      offConn();
    };
  }, []);
  return items;
}
