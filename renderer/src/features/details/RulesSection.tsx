/**
 * What rules did to an exchange (HAR `_rules`, `_mocked`), and "Mock this response":
 * a mock rule prefilled from the exchange, opened in the Rules view.
 */
import { useCallback } from 'react';
import type { ExchangeDetail, ExchangeSummary } from '../../../../proxy/src/api/contract';
import { api } from '../../api';
import { mockFromExchange } from '../../lib/rules-model';
import { useToasts } from '../../ui/Toasts';
import { openRuleDraft } from '../rules/draft';
import type { ExchangeSource } from './source';

export function RulesSection({ detail }: { detail: ExchangeDetail }) {
  if (!detail.rules?.length && !detail.mocked) return null;
  return (
    <div className="section" data-testid="details-rules">
      <div className="section-title">
        Rules
        {detail.mocked && (
          <span className="badge mocked-badge" data-testid="mocked-badge">
            Mocked — not from the network
          </span>
        )}
      </div>
      <div className="kv">
        {(detail.rules ?? []).map((r, i) => (
          <span key={i} style={{ display: 'contents' }}>
            <span className="k plain">{r.name ?? r.id}</span>
            <span className="v" data-testid="details-rule">
              {r.actions.join(', ')} <span className="muted">(rule {r.id})</span>
              {r.note && (
                <span className="rule-note" data-testid="details-rule-note">
                  {' '}
                  — {r.note}
                </span>
              )}
            </span>
          </span>
        ))}
      </div>
    </div>
  );
}

/** Builds the mock rule from the exchange (its decoded response body too) and opens it in Rules. */
export function useMockThis(row: ExchangeSummary, detail: ExchangeDetail | undefined, source: ExchangeSource): () => Promise<void> {
  const toast = useToasts();
  return useCallback(async () => {
    if (!detail?.response) return;
    try {
      const [body, state] = await Promise.all([source.body(row.id, 'response'), api.getRules()]);
      openRuleDraft(mockFromExchange(detail, body, state.rules));
    } catch (err) {
      toast.error(err, 'Could not make a mock rule');
    }
  }, [detail, row.id, source, toast]);
}
