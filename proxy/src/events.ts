import type { ProxyEvent } from './model.js';
import { ErrorCodes } from './errors.js';

export type ProxyEventListener = (event: ProxyEvent) => void;

/**
 * The proxy's single event stream. Subscribers (HAR recorder, UI transport, lab,
 * CLI log) call `subscribe` and get every event in order.
 *
 * Why not EventEmitter: one typed union is easier to forward over IPC/WebSocket
 * unchanged, and a throwing subscriber must never break the proxy's hot path,
 * so errors are caught and reported per listener.
 */
export class EventStream {
  private listeners = new Set<ProxyEventListener>();

  /** Returns a function that unsubscribes. */
  subscribe(listener: ProxyEventListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  get hasListeners(): boolean {
    return this.listeners.size > 0;
  }

  emit(event: ProxyEvent): void {
    for (const listener of this.listeners) {
      try {
        listener(event);
      } catch (err) {
        // A broken subscriber must not take the proxy down; say so once per event.
        process.emitWarning(`Netlens event listener threw on "${event.type}": ${(err as Error)?.stack ?? err}`, {
          code: ErrorCodes.LISTENER_FAILED,
        });
      }
    }
  }
}
