import type { EventStream } from '../events.js';
import type { ResolvedProxyOptions } from '../options.js';
import type { CertificateAuthority } from '../tls/ca.js';
import type { UpstreamPool } from '../upstream/pool.js';
import type { RequestOrigin } from './client.js';

/** What every part of a running proxy shares: options, events, pools, the CA, id counters. */
export interface ProxyContext {
  options: ResolvedProxyOptions;
  events: EventStream;
  pool: UpstreamPool;
  ca: CertificateAuthority;
  nextExchangeId(): string;
  nextClientConnectionId(): string;
  /** The socket timeline (undefined when the `timeline` option is off). */
  timeline?: import('../timeline/recorder.js').Timeline;
  /** Whether host:port is this proxy's own listening address. */
  isSelf(host: string, port: number): boolean;
  /** The client timeout that closed this connection just now, if one did (its exchange is recorded with it). */
  clientTimeoutReason?(clientConnectionId: string): import('../model.js').ExchangeError | undefined;
  /** Why a target must not be forwarded (a loop back into the proxy), or null. */
  refuseTarget(url: URL, origin: RequestOrigin): { status: number; message: string } | null;
}
