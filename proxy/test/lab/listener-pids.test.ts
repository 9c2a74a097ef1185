/**
 * Finding an external proxy's processes by the loopback port it listens on (lab/listener-pids.ts): the
 * kernel's socket tables, good lines and the ones to pass over, and a real listener in a child process.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { afterEach, describe, expect, it } from 'vitest';
import { isLoopbackHost, listenerPids, listeningInodes } from '../../src/lab/listener-pids.js';

const HEAD = '  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode';
const row = (local: string, st: string, inode: string) =>
  `   0: ${local} 00000000:0000 ${st} 00000000:00000000 00:00000000 00000000     0        0 ${inode} 1 0000000000000000 100 0 0 10 0`;

describe('listeningInodes', () => {
  it('takes listeners on the port that a loopback client reaches: 127.x, 0.0.0.0, ::1, ::, ::ffff:127.x', () => {
    const v4 = [HEAD, row('0100007F:1F90', '0A', '111'), row('00000000:1F90', '0A', '112'), row('0200007F:1F90', '0A', '113')].join('\n');
    expect(listeningInodes(v4, 8080)).toEqual(['111', '112', '113']);
    const v6 = [
      HEAD,
      row('00000000000000000000000001000000:1F90', '0A', '211'),
      row('00000000000000000000000000000000:1F90', '0A', '212'),
      row('0000000000000000FFFF00000100007F:1F90', '0A', '213'),
    ].join('\n');
    expect(listeningInodes(v6, 8080)).toEqual(['211', '212', '213']);
  });

  it('passes over other ports, other states, other addresses, a zero inode and damaged lines', () => {
    const table = [
      HEAD,
      row('0100007F:1F91', '0A', '1'), // another port
      row('0100007F:1F90', '01', '2'), // an established connection, not a listener
      row('0501A8C0:1F90', '0A', '3'), // 192.168.1.5: not reachable as 127.0.0.1
      row('B80D0120000000000000000001000000:1F90', '0A', '4'), // 2001:db8::1
      row('0100007F:1F90', '0A', '0'),
      '   9: garbage',
      '',
    ].join('\n');
    expect(listeningInodes(table, 8080)).toEqual([]);
    expect(listeningInodes('', 8080)).toEqual([]);
  });
});

describe('isLoopbackHost', () => {
  it('knows the loopback names and nothing else', () => {
    for (const h of ['127.0.0.1', '127.1.2.3', 'localhost', 'LOCALHOST', '::1', '[::1]']) expect(isLoopbackHost(h), h).toBe(true);
    for (const h of ['10.0.0.1', 'proxy.example', '128.0.0.1', '127.0.0.1.example', '::2', '']) expect(isLoopbackHost(h), h).toBe(false);
  });
});

describe('listenerPids', () => {
  let child: ChildProcess | undefined;
  afterEach(() => {
    child?.kill('SIGKILL');
    child = undefined;
  });

  it('finds the process listening on a loopback port, and nothing once it is gone (elsewhere than Linux: nothing)', async () => {
    child = spawn(process.execPath, [
      '-e',
      "require('net').createServer().listen(0, '127.0.0.1', function () { console.log(this.address().port) })",
    ]);
    const [line] = (await once(child.stdout!, 'data')) as [Buffer];
    const port = Number(line.toString().trim());
    expect(port).toBeGreaterThan(0);
    // No /proc to read elsewhere: the lab then has no CPU figure for via cells, and says nothing wrong.
    expect(listenerPids(port)).toEqual(process.platform === 'linux' ? [child.pid] : []);
    child.kill('SIGKILL');
    await once(child, 'exit');
    expect(listenerPids(port)).toEqual([]);
  });
});
