/** The command line the lab's proxy child is started with (lab/proxy-process.ts), read from /proc. */
import fs from 'node:fs';
import { startProxyHost } from '../../src/lab/proxy-process.js';

export async function labProxyChildArgv(): Promise<string[]> {
  const host = await startProxyHost();
  try {
    return fs.readFileSync(`/proc/${host.pid}/cmdline`, 'utf8').split('\0');
  } finally {
    await host.close();
  }
}
