/**
 * The lab run the UI follows, kept outside React components so progress keeps
 * arriving while the user looks at another view.
 */
import { useSyncExternalStore } from 'react';
import type { LabRunState } from '../../../../proxy/src/api/contract';
import { api } from '../../api';

let current: LabRunState | undefined;
const listeners = new Set<() => void>();
const historyListeners = new Set<() => void>();

/** Called whenever a lab run finishes (the history list reloads). */
export function onLabFinished(listener: () => void): () => void {
  ensureSubscribed();
  historyListeners.add(listener);
  return () => historyListeners.delete(listener);
}
let subscribed = false;

function set(next: LabRunState | undefined) {
  current = next;
  listeners.forEach((l) => l());
}

function ensureSubscribed() {
  if (subscribed) return;
  subscribed = true;
  api.subscribe((e) => {
    if (e.type === 'lab-progress' && current?.runId === e.runId) {
      const completed = 'completed' in e.progress ? e.progress.completed : 0;
      set({ runId: e.runId, state: 'running', progress: e.progress, completed, total: e.progress.total });
    } else if (e.type === 'lab-finished' && current?.runId === e.run.runId) {
      set(e.run);
    }
    // Any run that ends changes the history.
    if (e.type === 'lab-finished') historyListeners.forEach((l) => l());
  });
}

export const labStore = {
  follow(runId: string, total: number) {
    ensureSubscribed();
    set({ runId, state: 'running', completed: 0, total });
  },
  /** Shows a run (from the history, or one still running after a reload). */
  show(state: LabRunState) {
    ensureSubscribed();
    set(state);
  },
  current(): LabRunState | undefined {
    return current;
  },
  /** Catches up after a reload or a missed event. */
  async refresh() {
    if (!current) return;
    try {
      set(await api.getLabRun({ runId: current.runId }));
    } catch {
      // The run is gone (core restarted): keep showing what we had.
    }
  },
  clear() {
    set(undefined);
  },
};

export function useLabRun(): LabRunState | undefined {
  ensureSubscribed();
  return useSyncExternalStore(
    (l) => {
      listeners.add(l);
      return () => listeners.delete(l);
    },
    () => current,
  );
}
