/**
 * "Mock this response" (Traffic's Details) hands a prefilled rule to the Rules view
 * through here: Details does not know the app shell, the shell listens and opens Rules.
 */
import type { Rule } from '../../../../proxy/src/api/contract';

export interface RuleDraft {
  rule: Rule;
  /** Shown above the editor, e.g. why the body was left empty. */
  note?: string;
}

const listeners = new Set<(d: RuleDraft) => void>();

export function openRuleDraft(draft: RuleDraft): void {
  listeners.forEach((l) => l(draft));
}

export function onRuleDraft(listener: (d: RuleDraft) => void): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}
