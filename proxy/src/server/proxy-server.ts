import type { ProxyAddress, ProxySettings } from '../model.js';
import { EventStream } from '../events.js';
import type { ProxyOptions } from '../options.js';
import type { CertificateAuthority } from '../tls/ca.js';

export interface ProxyHandle {
  readonly address: ProxyAddress;
  readonly settings: ProxySettings;
  /** The one event stream: subscribe to get every exchange's lifecycle. */
  readonly events: EventStream;
  readonly ca: CertificateAuthority;
  /** Stops listening, closes client and upstream connections. Idempotent. */
  stop(): Promise<void>;
}

export async function startProxy(_options: ProxyOptions = {}): Promise<ProxyHandle> {
  void EventStream;
  throw new Error('startProxy: being implemented (issue 2)');
}
