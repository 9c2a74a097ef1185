/**
 * What a benchmark peer is and what it is given, apart from the list of peers (peers/index.ts) so
 * peers defined in their own files (peers/nginx.ts) import it without importing that list back.
 */
import type { Child } from './child.js';

export interface PeerInfo {
  port: number;
  /** CA certificate a client must trust to talk TLS through this peer (intercepting peers). */
  caPath?: string;
  /** Netlens with record=toggle (bench/peers/netlens.ts): the port that starts and stops its recorder. */
  controlPort?: number;
}

export interface Peer {
  name: string;
  /** Plain HTTP forward proxy (absolute-form requests). */
  forwards: boolean;
  /** HTTPS via CONNECT: 'intercept' terminates TLS, 'tunnel' relays bytes. */
  connect?: 'intercept' | 'tunnel';
  /** Extra curl arguments for the bench's CONNECT check, e.g. `--http1.1` for a peer that needs an HTTP/2 origin for HTTP/2 clients. */
  connectCheckArgs?: string[];
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
