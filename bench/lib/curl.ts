/** One request with curl: the bench's check that a peer really forwards before it is measured. */
import { execFile } from 'node:child_process';

export function curl(args: string[], timeoutS = 10): Promise<{ ok: boolean; out: string }> {
  return new Promise((resolve) => {
    execFile('curl', ['-sS', '--max-time', String(timeoutS), ...args], { maxBuffer: 1 << 20 }, (err, stdout, stderr) =>
      resolve({ ok: !err, out: err ? (stderr || err.message).trim() : stdout }),
    );
  });
}
