/**
 * The Traffic row's context menu (right-click): one-clicks that open the Rules view with a
 * rule drafted from the exchange — a mock of its response, a rewrite, a breakpoint.
 */
import { useEffect, useRef } from 'react';
import type { ExchangeSummary } from '../../../../proxy/src/api/contract';
import { api } from '../../api';
import { breakpointFromExchange, mockFromExchange, rewriteFromExchange } from '../../lib/rules-model';
import { useToasts } from '../../ui/Toasts';
import type { ExchangeSource } from '../details/source';
import { openRuleDraft } from '../rules/draft';

export interface RowMenuAt {
  row: ExchangeSummary;
  x: number;
  y: number;
}

export function RowMenu({ at, source, onClose }: { at: RowMenuAt; source: ExchangeSource; onClose(): void }) {
  const toast = useToasts();
  const ref = useRef<HTMLDivElement>(null);
  // Any click elsewhere, Escape, a scroll or the window losing focus closes it, as native menus do.
  useEffect(() => {
    const down = (e: MouseEvent) => ref.current?.contains(e.target as Node) || onClose();
    const key = (e: KeyboardEvent) => e.key === 'Escape' && onClose();
    window.addEventListener('mousedown', down, true);
    window.addEventListener('keydown', key);
    window.addEventListener('blur', onClose);
    window.addEventListener('wheel', onClose, { passive: true });
    return () => {
      window.removeEventListener('mousedown', down, true);
      window.removeEventListener('keydown', key);
      window.removeEventListener('blur', onClose);
      window.removeEventListener('wheel', onClose);
    };
  }, [onClose]);

  const { row } = at;
  const run = (what: string, make: () => Promise<void>) => () => {
    onClose();
    make().catch((err) => toast.error(err, `Could not make the ${what} rule`));
  };
  const mock = run('mock', async () => {
    const [detail, body, state] = await Promise.all([source.detail(row.id), source.body(row.id, 'response'), api.getRules()]);
    openRuleDraft(mockFromExchange(detail, body, state.rules));
  });
  const rewrite = run('rewrite', async () => openRuleDraft(rewriteFromExchange(row, (await api.getRules()).rules)));
  const breakpoint = run('breakpoint', async () => openRuleDraft(breakpointFromExchange(row, (await api.getRules()).rules)));

  // Kept inside the window: a menu opened near the right or bottom edge opens leftwards / upwards.
  const left = Math.min(at.x, window.innerWidth - 210);
  const top = Math.min(at.y, window.innerHeight - 100);
  return (
    <div className="row-menu" role="menu" ref={ref} style={{ left, top }} data-testid="row-menu">
      <button
        role="menuitem"
        disabled={row.status === undefined}
        title={row.status === undefined ? 'No response was recorded for this request' : 'A rule that answers like this response'}
        onClick={mock}
        data-testid="row-menu-mock"
      >
        Mock this response
      </button>
      <button role="menuitem" onClick={rewrite} title="A rule that edits this request's response" data-testid="row-menu-rewrite">
        Rewrite this
      </button>
      <button role="menuitem" onClick={breakpoint} title="A rule that pauses this request" data-testid="row-menu-breakpoint">
        Add breakpoint
      </button>
    </div>
  );
}
