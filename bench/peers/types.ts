/** What a benchmarked proxy is and what it is started with (index.ts lists the peers; nginx.ts is one of them). */
import type { Child } from '../lib/child.js';

export interface PeerInfo {
  port: number;
  /** CA certificate a client must trust to talk TLS through this peer (intercepting peers). */
  caPath?: string;
}

export interface Peer {
  name: string;
  /** Plain HTTP forward proxy (absolute-form requests). */
  forwards: boolean;
  /** HTTPS via CONNECT: 'intercept' terminates TLS, 'tunnel' relays bytes. */
  connect?: 'intercept' | 'tunnel';
  start(env: BenchEnv): Promise<Child<PeerInfo>>;
}

export interface BenchEnv {
  /** Data dir holding the bench CA (origin certificates are issued by it). */
  dataDir: string;
  caPath: string;
  originHttp: string;
  /** mitmdump from a virtualenv, when installed. */
  mitmdump?: string;
}
