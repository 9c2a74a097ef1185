/**
 * The socket timeline's data: what the proxy wrote to and read from each connection
 * it owns, in monotonic time. Stored in a session's HAR as `log._connections`
 * (see har.ts); every field is short because a page load makes thousands of events.
 */

/**
 * One write handed to the kernel, or one read delivered by it; on an HTTP/2 lane (`framing: 'h2'`),
 * one HEADERS or DATA payload handed to nghttp2 or received from it (h2-hooks.ts).
 */
export interface SocketEvent {
  /** performance.now() in ms (µs precision); log._connectionsTimeOrigin turns it into wall time. */
  t: number;
  /** 'w' the proxy wrote, 'r' the proxy read. */
  d: 'w' | 'r';
  /**
   * Bytes (application bytes: plaintext on TLS sockets). On an HTTP/2 lane: a DATA payload's size, or a header
   * list's size as SETTINGS_MAX_HEADER_LIST_SIZE counts it (name + value + 32 per field), not its HPACK encoding.
   */
  n: number;
  /** Exchange id this event belongs to, once known (tagged when the exchange finishes). */
  x?: string;
  /** Nagle's algorithm was on for this socket at the time (socket writes only; absent on HTTP/2 lanes). */
  nagle?: boolean;
}

export interface ConnectionTimeline {
  /** The HAR's connection id: `c…` for client legs (`_clientConnection`), `u…` for upstream legs (`connection`). */
  id: string;
  leg: 'client' | 'upstream';
  /** performance.now() when the proxy started watching it. */
  opened: number;
  closed?: number;
  /**
   * 'h2': an HTTP/2 session. nghttp2 reads and writes its socket from C++, so its events are frames handed
   * to nghttp2 or received from it, per stream and tagged with the stream's exchange, not send syscalls
   * (stalls.ts leaves such lanes alone). Absent: socket-level events.
   */
  framing?: 'h2';
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
