/**
 * Test fixtures: a real `netlens serve` (real proxy, fresh data directory) per
 * test, and a helper to save screenshots as artifacts under e2e/artifacts/.
 */
import { test as base, expect, type Page } from '@playwright/test';
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
export const ARTIFACTS = path.join(ROOT, 'e2e', 'artifacts');
export const FIXTURES = path.join(ROOT, 'e2e', 'fixtures');

export interface Serve {
  /** UI URL with the token. */
  url: string;
  /** Proxy URL, when the proxy started. */
  proxyUrl?: string;
  dataDir: string;
  output(): string;
}

/** Starts `netlens serve` and resolves once it printed its UI URL. */
export async function startServe(
  extraArgs: string[] = [],
  extraEnv: NodeJS.ProcessEnv = {},
): Promise<{ serve: Serve; child: ChildProcess }> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'netlens-e2e-'));
  const child = spawn(
    process.execPath,
    [path.join(ROOT, 'bin', 'netlens.js'), 'serve', '--port', '0', '--proxy-port', '0', '--data-dir', dataDir, ...extraArgs],
    {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, NETLENS_DATA_DIR: dataDir, ...extraEnv },
    },
  );
  let out = '';
  child.stdout!.on('data', (c) => (out += c));
  child.stderr!.on('data', (c) => (out += c));
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`netlens serve did not print its URL in 30 s:\n${out}`)), 30_000);
    const check = () => {
      const m = /Netlens UI: (\S+)/.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve(m[1]!);
      }
    };
    child.stdout!.on('data', check);
    child.on('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`netlens serve exited with ${code}:\n${out}`));
    });
  });
  const proxyUrl = /Proxy listening on (\S+)/.exec(out)?.[1];
  return { serve: { url, proxyUrl, dataDir, output: () => out }, child };
}

export async function stopServe(child: ChildProcess, dataDir: string): Promise<void> {
  if (child.exitCode === null) {
    const exited = new Promise((r) => child.once('exit', r));
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
    await exited;
    clearTimeout(timer);
  }
  fs.rmSync(dataDir, { recursive: true, force: true });
}

export const test = base.extend<{ serve: Serve; pageErrors: void }>({
  serve: async ({}, use) => {
    const { serve, child } = await startServe();
    await use(serve);
    await stopServe(child, serve.dataDir);
  },
  // Every test fails on an uncaught exception in the UI or a Content-Security-Policy violation.
  pageErrors: [
    async ({ page }, use) => {
      const errors: string[] = [];
      page.on('pageerror', (e) => errors.push(`uncaught: ${e.message}`));
      page.on('console', (m) => {
        if (m.type() === 'error' && /Content Security Policy|Refused to/i.test(m.text())) errors.push(`CSP: ${m.text()}`);
      });
      await use();
      expect(errors, 'errors in the page').toEqual([]);
    },
    { auto: true },
  ],
});

/** Saves a full-page screenshot as a test artifact (e2e/artifacts/<name>.png). */
export async function snap(page: Page, name: string): Promise<string> {
  fs.mkdirSync(ARTIFACTS, { recursive: true });
  const file = path.join(ARTIFACTS, `${name}.png`);
  await page.screenshot({ path: file });
  return file;
}

export { expect };
