/**
 * nginx from the distribution (Debian: apt-get install nginx-light) as a
 * non-Node ceiling for plain HTTP forwarding. nginx accepts absolute-form
 * request lines (an HTTP/1.1 server must) and passes the path on in origin
 * form; it forwards every request to a fixed upstream, the origin, rather
 * than routing by the request line's host, so it is a ceiling, not a general
 * forward proxy. Keep-alive both ways: an upstream block with a connection
 * cache, HTTP/1.1 and no Connection header upstream.
 *
 * One worker process (worker_processes 1) to compare with the single-threaded
 * Node proxies; the master only supervises. Everything nginx writes (pid,
 * lock, error log, temp dirs) is in a directory under the bench's dataDir:
 * -p/-c/-e so nothing under /var or /etc is touched. Killed by SIGTERM to the
 * master, which stops its worker; the worker is killed by PID if it outlives
 * the master. CPU and memory are the master's plus its worker's.
 */
import fs from 'node:fs';
import path from 'node:path';
import { freePort, startChild, type Child } from '../lib/child.js';
import { procCpuMs, procMemory } from '../lib/proc.js';
import type { BenchEnv, Peer, PeerInfo } from '../lib/peer-types.js';

export function nginxBinary(): string | undefined {
  return [process.env.NGINX ?? '', '/usr/sbin/nginx'].find((p) => p && fs.existsSync(p));
}

function config(dir: string, port: number, originPort: number): string {
  const p = (f: string) => path.join(dir, f);
  return `daemon off;
master_process on;
# One worker: compared with single-threaded Node proxies.
worker_processes 1;
pid ${p('nginx.pid')};
lock_file ${p('nginx.lock')};
error_log ${p('error.log')} warn;
${process.getuid?.() === 0 ? '# As root, workers would run as nobody, which cannot reach the temp paths inside the 0700 data dir.\nuser root;' : ''}
events { worker_connections 1024; }
http {
  access_log off;
  client_body_temp_path ${p('body')};
  proxy_temp_path ${p('proxy')};
  fastcgi_temp_path ${p('fastcgi')};
  uwsgi_temp_path ${p('uwsgi')};
  scgi_temp_path ${p('scgi')};
  tcp_nodelay on;
  # Node's servers and agents do not close keep-alive connections after N requests; nginx's default is 1000.
  keepalive_requests 1000000;
  upstream origin {
    server 127.0.0.1:${originPort};
    keepalive 64;
    keepalive_requests 1000000;
  }
  server {
    listen 127.0.0.1:${port};
    location / {
      proxy_pass http://origin;
      proxy_http_version 1.1;
      proxy_set_header Connection "";
      proxy_set_header Host $http_host;
    }
  }
}
`;
}

/** PIDs of a process's children (nginx's workers), from /proc. */
function childPids(pid: number): number[] {
  try {
    return fs.readdirSync(`/proc/${pid}/task`).flatMap((t) => {
      try {
        return fs.readFileSync(`/proc/${pid}/task/${t}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number);
      } catch {
        return [];
      }
    });
  } catch {
    return [];
  }
}

// A worker may exit between listing and reading: count it as nothing.
function cpuMsOf(pid: number): number {
  try {
    return procCpuMs(pid);
  } catch {
    return 0;
  }
}

function memOf(pid: number): { rssMiB: number; hwmMiB: number } {
  try {
    return procMemory(pid);
  } catch {
    return { rssMiB: 0, hwmMiB: 0 };
  }
}

const isNginx = (pid: number) => {
  try {
    return fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').startsWith('nginx: ');
  } catch {
    return false;
  }
};

export const nginx: Peer = {
  name: 'nginx (1 worker)',
  forwards: true,
  start: async (env: BenchEnv): Promise<Child<PeerInfo>> => {
    const bin = nginxBinary();
    if (!bin) throw new Error('nginx not installed (apt-get install nginx-light, or set NGINX to its binary)');
    const dir = fs.mkdtempSync(path.join(env.dataDir, 'nginx-'));
    const port = await freePort();
    const conf = path.join(dir, 'nginx.conf');
    fs.writeFileSync(conf, config(dir, port, Number(new URL(env.originHttp).port)));
    const child = await startChild<PeerInfo>('nginx', bin, ['-p', dir, '-c', conf, '-e', path.join(dir, 'error.log')], { readyPort: port });
    const workers = new Set<number>();
    const all = () => {
      for (const w of childPids(child.pid)) workers.add(w);
      return [child.pid, ...childPids(child.pid)];
    };
    all();
    // If the harness dies and SIGKILLs the master, the worker would be orphaned and keep the port.
    const reap = () => {
      for (const w of workers)
        if (isNginx(w))
          try {
            process.kill(w, 'SIGKILL');
          } catch {
            /* gone */
          }
    };
    process.on('exit', reap);
    return {
      ...child,
      cpuMs: () => all().reduce((s, pid) => s + cpuMsOf(pid), 0),
      memory: () =>
        all()
          .map(memOf)
          .reduce((a, b) => ({ rssMiB: a.rssMiB + b.rssMiB, hwmMiB: a.hwmMiB + b.hwmMiB })),
      kill: async () => {
        all();
        await child.kill();
        // The master stops its worker on SIGTERM before it exits; this only catches a worker left behind.
        await new Promise((r) => setTimeout(r, 100));
        reap();
        process.off('exit', reap);
      },
    };
  },
};
