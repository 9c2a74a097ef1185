/**
 * Minimal typings for the two untyped CommonJS libraries the browser module
 * uses: only what we call, checked against their sources in node_modules.
 */
declare module 'chrome-har-capturer' {
  import type { Har } from '../har/types.js';
  export interface CdpEvent {
    method: string;
    params: Record<string, unknown>;
  }
  /** Builds a one-page HAR from raw DevTools events (lib/replay.js); rejects 'Incomplete event log'. */
  export function fromLog(url: string, log: CdpEvent[], options?: { content?: boolean }): Promise<Har>;
}

declare module 'chrome-remote-interface' {
  import type { EventEmitter } from 'node:events';
  export interface CdpClient extends EventEmitter {
    // Domains are dynamic objects generated from the protocol descriptor.
    Network: {
      enable(params?: Record<string, unknown>): Promise<void>;
      setCacheDisabled(params: { cacheDisabled: boolean }): Promise<void>;
    };
    Page: {
      enable(): Promise<void>;
      navigate(params: { url: string }): Promise<{ frameId: string; errorText?: string }>;
    };
    Runtime: {
      evaluate(params: { expression: string; returnByValue?: boolean }): Promise<{ result: { value?: unknown } }>;
    };
    Browser: {
      getVersion(): Promise<{ product: string; userAgent: string; protocolVersion: string }>;
    };
    close(): Promise<void>;
  }
  interface Options {
    host?: string;
    port?: number;
    target?: string | ((targets: Array<{ type: string; id: string; webSocketDebuggerUrl?: string }>) => unknown);
    local?: boolean;
  }
  function CDP(options?: Options): Promise<CdpClient>;
  namespace CDP {
    function Version(options: { host?: string; port?: number }): Promise<{ Browser: string; webSocketDebuggerUrl: string }>;
    function List(options: { host?: string; port?: number }): Promise<Array<{ type: string; id: string; url: string }>>;
  }
  export default CDP;
}
