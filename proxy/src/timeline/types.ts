/**
 * The socket timeline's data: what the proxy wrote to and read from each connection
 * it owns, in monotonic time. Stored in a session's HAR as `log._connections`
 * (see har.ts); every field is short because a page load makes thousands of events.
 */

/** One write handed to the kernel, or one read delivered by it. */
export interface SocketEvent {
  /** performance.now() in ms (µs precision); log._connectionsTimeOrigin turns it into wall time. */
  t: number;
  /** 'w' the proxy wrote, 'r' the proxy read. */
  d: 'w' | 'r';
  /** Bytes (application bytes: plaintext on TLS sockets, HTTP/2 frames are not seen one by one). */
  n: number;
  /** Exchange id this event belongs to, once known (tagged when the exchange finishes). */
  x?: string;
  /** Nagle's algorithm was on for this socket at the time (writes only). */
  nagle?: boolean;
}

export interface ConnectionTimeline {
  /** The HAR's connection id: `c…` for client legs (`_clientConnection`), `u…` for upstream legs (`connection`). */
  id: string;
  leg: 'client' | 'upstream';
  /** performance.now() when the proxy started watching it. */
  opened: number;
  closed?: number;
  events: SocketEvent[];
}

/** The `log` fields the timeline adds to a HAR. */
export interface TimelineLog {
  _connections: ConnectionTimeline[];
  /** Events dropped because the timeline hit its memory cap. */
  _connectionsDropped: number;
  /** performance.timeOrigin of the recording process: wall time of `t = 0`, ms since the epoch. */
  _connectionsTimeOrigin: number;
}
