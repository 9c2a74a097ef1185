/**
 * One raw TCP exchange with a server: write bytes, send FIN, and see what
 * comes back and whether the server closes its side within the grace period.
 */
import net from 'node:net';

export interface RawOutcome {
  /** The first line the server answered (`HTTP/1.1 400 Bad Request`), or '' for none. */
  statusLine: string;
  /** Status code from the status line, 0 without one. */
  status: number;
  /** Every status line seen (pipelined answers, 101 then nothing, …). */
  statuses: number[];
  /** The server closed the connection within `graceMs` after our FIN. */
  closed: boolean;
  /** The connection ended with a reset rather than a FIN (allowed: Node resets on some parse errors). */
  reset: boolean;
  /** ms from our FIN to the server's close. */
  closeMs: number;
}

export function rawExchange(port: number, bytes: Buffer, graceMs = 5_000): Promise<RawOutcome> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let reset = false;
    let finAt = 0;
    let timer: NodeJS.Timeout | undefined;
    const socket = net.connect(port, '127.0.0.1');
    // A server that neither reads our bytes nor closes would stall the write (and the FIN) forever.
    const stalled = setTimeout(() => {
      socket.destroy();
      socket.removeAllListeners('close');
      finish(false);
    }, graceMs + 10_000);
    const finish = (closed: boolean) => {
      clearTimeout(timer);
      clearTimeout(stalled);
      const text = Buffer.concat(chunks).toString('latin1');
      const statuses = [...text.matchAll(/(?:^|\r\n)HTTP\/1\.[01] (\d{3})/g)].map((m) => Number(m[1]));
      const statusLine = text.startsWith('HTTP/') ? text.slice(0, text.indexOf('\r\n') >>> 0) : '';
      resolve({ statusLine, status: statuses[0] ?? 0, statuses, closed, reset, closeMs: finAt ? Date.now() - finAt : 0 });
    };
    socket.on('data', (c: Buffer) => chunks.push(c));
    socket.on('error', (e: NodeJS.ErrnoException) => {
      if (e.code === 'ECONNRESET' || e.code === 'EPIPE') reset = true;
    });
    socket.on('close', () => finish(true));
    socket.on('connect', () => {
      // end() writes the bytes, then half-closes: the server sees our FIN after the request.
      socket.end(bytes, () => {
        finAt = Date.now();
        timer = setTimeout(() => {
          socket.destroy();
          socket.removeAllListeners('close');
          finish(false);
        }, graceMs);
      });
    });
  });
}
