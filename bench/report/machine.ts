/** What the numbers were measured on: CPU, memory, load, and the versions of every peer. */
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { appPaths } from '../../proxy/src/app-paths.js';
import { ROOT_DIR } from '../lib/child.js';

export interface MachineInfo {
  date: string;
  cpu: string;
  cores: number;
  memGiB: number;
  loadavg: string;
  os: string;
  node: string;
  versions: Record<string, string>;
}

function pkgVersion(name: string): string {
  try {
    return (JSON.parse(fs.readFileSync(path.join(ROOT_DIR, 'node_modules', name, 'package.json'), 'utf8')) as { version: string }).version;
  } catch {
    return 'not installed';
  }
}

function cmdVersion(cmd: string, args: string[], pick: RegExp): string {
  try {
    const out = execFileSync(cmd, args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], timeout: 10_000 });
    return out.match(pick)?.[1] ?? out.split('\n')[0]!;
  } catch (err) {
    // wrk -v exits non-zero but prints its version.
    const out = String((err as { stdout?: string }).stdout ?? '');
    return out.match(pick)?.[1] ?? 'not installed';
  }
}

function nginxVersion(): string {
  const bin = process.env.NGINX ?? '/usr/sbin/nginx';
  try {
    const r = spawnSync(bin, ['-v'], { encoding: 'utf8', timeout: 10_000 });
    return r.stderr.match(/nginx\/(\S+)/)?.[1] ?? 'not installed';
  } catch {
    return 'not installed';
  }
}

export function machineInfo(mitmdump?: string): MachineInfo {
  let osName = `${os.type()} ${os.release()}`;
  try {
    osName = fs.readFileSync('/etc/os-release', 'utf8').match(/^PRETTY_NAME="(.*)"$/m)?.[1] + ` (kernel ${os.release()})`;
  } catch {
    /* keep uname */
  }
  return {
    date: new Date().toISOString(),
    cpu: os.cpus()[0]?.model ?? 'unknown',
    cores: os.cpus().length,
    memGiB: os.totalmem() / 2 ** 30,
    loadavg: os
      .loadavg()
      .map((l) => l.toFixed(2))
      .join(' '),
    os: osName,
    node: process.version,
    versions: {
      netlens: appPaths().version,
      wrk: cmdVersion('wrk', ['-v'], /wrk (\S+)/),
      curl: cmdVersion('curl', ['--version'], /curl (\S+)/),
      undici: pkgVersion('undici'),
      httpxy: pkgVersion('httpxy'),
      'http-proxy-3': pkgVersion('http-proxy-3'),
      'fast-proxy': pkgVersion('fast-proxy'),
      mockttp: pkgVersion('mockttp'),
      'http-mitm-proxy': pkgVersion('http-mitm-proxy'),
      // nginx -v prints to stderr.
      nginx: nginxVersion(),
      mitmproxy: mitmdump ? cmdVersion(mitmdump, ['--version'], /Mitmproxy: (\S+)/) : 'not installed',
    },
  };
}
