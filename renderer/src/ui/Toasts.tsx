/** Transient messages (errors of commands, confirmations). */
import { createContext, useCallback, useContext, useMemo, useState, type ReactNode } from 'react';
import { errorMessage } from '../api';

type Kind = 'info' | 'ok' | 'error';
interface Toast {
  id: number;
  kind: Kind;
  text: string;
}

interface ToastApi {
  show(text: string, kind?: Kind): void;
  /** Shows a command's error with its code; returns undefined so callers can `return toast.error(e)`. */
  error(err: unknown, prefix?: string): undefined;
}

const Ctx = createContext<ToastApi>({ show: () => undefined, error: () => undefined });
let seq = 0;

export function ToastProvider({ children }: { children: ReactNode }) {
  const [toasts, setToasts] = useState<Toast[]>([]);
  const dismiss = useCallback((id: number) => setToasts((t) => t.filter((x) => x.id !== id)), []);
  const show = useCallback(
    (text: string, kind: Kind = 'info') => {
      const id = ++seq;
      setToasts((t) => [...t.slice(-3), { id, kind, text }]);
      setTimeout(() => dismiss(id), kind === 'error' ? 12_000 : 4_000);
    },
    [dismiss],
  );
  const api = useMemo<ToastApi>(
    () => ({ show, error: (err, prefix) => (show(prefix ? `${prefix}: ${errorMessage(err)}` : errorMessage(err), 'error'), undefined) }),
    [show],
  );
  return (
    <Ctx.Provider value={api}>
      {children}
      <div className="toasts" role="status">
        {toasts.map((t) => (
          <div key={t.id} className={`toast ${t.kind}`} data-testid={`toast-${t.kind}`}>
            <span className="msg">{t.text}</span>
            <button className="icon-btn" aria-label="Dismiss" onClick={() => dismiss(t.id)}>
              ✕
            </button>
          </div>
        ))}
      </div>
    </Ctx.Provider>
  );
}

export const useToasts = () => useContext(Ctx);
