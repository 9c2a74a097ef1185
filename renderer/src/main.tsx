import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { App } from './App';
import { missingToken } from './api';
import { ToastProvider } from './ui/Toasts';
import './styles.css';

/** Shown instead of the app when the page was opened without its token (a new tab, a bookmark). */
function TokenRequired() {
  return (
    <div className="token-required" data-testid="token-required">
      <h1>Token required</h1>
      <p>
        Open the URL that <code>netlens serve</code> printed in its terminal (it ends in <code>?token=…</code>). The token is kept only in
        this tab and is not part of the page&apos;s address.
      </p>
    </div>
  );
}

createRoot(document.getElementById('root')!).render(
  <StrictMode>
    {missingToken ? (
      <TokenRequired />
    ) : (
      <ToastProvider>
        <App />
      </ToastProvider>
    )}
  </StrictMode>,
);
