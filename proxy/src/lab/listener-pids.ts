/**
 * Which processes on this machine listen on a loopback TCP port (Linux only):
 * how the lab finds an external proxy (`--via NAME=http://127.0.0.1:PORT`) to
 * read its CPU use per page load the way it reads its own proxy's (cpu-use.ts).
 *
 * Why: the lab compares page loads through Netlens with loads through another
 * proxy on the same machine. On a machine with few cores every CPU millisecond a
 * proxy spends is taken from the browser, so how much CPU each proxy used per
 * load is half of that comparison. The user should not have to look up a PID.
 *
 * How: the kernel lists listening sockets with their inode in /proc/net/tcp and
 * /proc/net/tcp6; a process holding one has a `socket:[inode]` link among its
 * file descriptors. Processes of other users cannot be read without privileges
 * and are not found. A remote proxy (any host but a loopback one) is never
 * looked up: a local process on the same port would be someone else.
 */
import fs from 'node:fs';
import { isLoopbackAddress } from '../server/client-guard.js';

/** TCP_LISTEN in the kernel's `st` column. */
const LISTEN = '0A';

/**
 * Local addresses a connection to 127.0.0.1 / [::1] can reach, as /proc/net/tcp{,6} write them (32-bit words in
 * host order, little-endian here): 127.x.x.x, 0.0.0.0, ::1, ::, ::ffff:127.x.x.x and ::ffff:0.0.0.0.
 */
function reachableFromLoopback(address: string): boolean {
  if (address.length === 8) return address === '00000000' || address.endsWith('7F');
  if (address.length !== 32) return false;
  if (/^0+$/.test(address) || address === '00000000000000000000000001000000') return true;
  const mapped = address.startsWith('0000000000000000FFFF0000');
  const v4 = address.slice(24);
  return mapped && (v4 === '00000000' || v4.endsWith('7F'));
}

/** Inodes of the sockets listening on `port` that a loopback client can reach, from the text of /proc/net/tcp or tcp6. */
export function listeningInodes(table: string, port: number): string[] {
  const inodes: string[] = [];
  for (const line of table.split('\n').slice(1)) {
    // sl local_address rem_address st tx_queue:rx_queue tr:tm->when retrnsmt uid timeout inode …
    const f = line.trim().split(/\s+/);
    if (f.length < 10 || f[3] !== LISTEN) continue;
    const [address, hexPort] = f[1]!.split(':');
    if (!address || parseInt(hexPort ?? '', 16) !== port || !reachableFromLoopback(address)) continue;
    if (/^\d+$/.test(f[9]!) && f[9] !== '0') inodes.push(f[9]!);
  }
  return inodes;
}

const read = (file: string): string => {
  try {
    return fs.readFileSync(file, 'utf8');
  } catch {
    return '';
  }
};

/** True for the host part of a URL that names this machine's loopback interface (a name, or an address as the proxy's client guard judges one). */
export function isLoopbackHost(hostname: string): boolean {
  const h = hostname.replace(/^\[|\]$/g, '').toLowerCase();
  return h === 'localhost' || isLoopbackAddress(h);
}

/**
 * PIDs of the processes listening on this loopback port, ascending (a server with worker processes sharing its
 * socket gives several); empty when none is found, none is readable, or this is not Linux.
 */
export function listenerPids(port: number): number[] {
  if (process.platform !== 'linux') return [];
  const inodes = new Set([...listeningInodes(read('/proc/net/tcp'), port), ...listeningInodes(read('/proc/net/tcp6'), port)]);
  if (!inodes.size) return [];
  const links = new Set([...inodes].map((i) => `socket:[${i}]`));
  const pids: number[] = [];
  for (const name of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    let fds: string[];
    try {
      fds = fs.readdirSync(`/proc/${name}/fd`);
    } catch {
      continue; // another user's process, or gone
    }
    for (const fd of fds) {
      let link: string;
      try {
        link = fs.readlinkSync(`/proc/${name}/fd/${fd}`);
      } catch {
        continue;
      }
      if (links.has(link)) {
        pids.push(Number(name));
        break;
      }
    }
  }
  return pids.sort((a, b) => a - b);
}
