#!/usr/bin/env node
// Why this exists: the package registry reachable from our build machines lacks
// some platform-specific optional packages (e.g. @rollup/rollup-android-arm-eabi)
// and some optional extras (tls-impersonate 0.2.x). `npm install` then leaves
// them out of package-lock.json, and `npm ci` refuses the lock as "out of sync".
// This adds a lock entry for every optional dependency that has none, marked
// optional (with os/cpu for platform packages, so npm skips them on other
// platforms without fetching). Run it after `npm install` changes the lock.
import { readFileSync, writeFileSync } from 'node:fs';
import { handleArgs } from './usage.mjs';

handleArgs(`Usage: node scripts/lock-optional-platforms.mjs

Adds a package-lock.json entry for every optional dependency that has none (the
registry we build from lacks some platform packages, and "npm ci" then refuses the
lock). Run it after "npm install" changes the lock. Rewrites package-lock.json;
takes no arguments.
`);

const file = new URL('../package-lock.json', import.meta.url);
const lock = JSON.parse(readFileSync(file, 'utf8'));
const pkgs = lock.packages;
const platform = (name) => {
  const m =
    /-(android|darwin|freebsd|linux|openbsd|openharmony|win32|sunos|aix|netbsd)-(arm64|arm|x64|ia32|loong64|ppc64|riscv64|s390x|mips64el|wasm32)/.exec(
      name,
    );
  return m ? { os: [m[1]], cpu: [m[2]] } : {};
};
/** Where node would resolve `name` from the package at `dir` (walk up node_modules). */
function resolved(dir, name) {
  let d = dir;
  for (;;) {
    if (pkgs[`${d ? `${d}/` : ''}node_modules/${name}`]) return true;
    if (!d) return false;
    const i = d.lastIndexOf('/node_modules/');
    d = i < 0 ? '' : d.slice(0, i);
  }
}
let added = 0;
for (const [dir, meta] of Object.entries(pkgs)) {
  for (const [name, range] of Object.entries(meta.optionalDependencies ?? {})) {
    if (resolved(dir, name)) continue;
    const version = String(range).replace(/^[~^]/, '');
    pkgs[`node_modules/${name}`] = { version, dev: meta.dev || undefined, optional: true, ...platform(name) };
    added++;
  }
}
lock.packages = Object.fromEntries(Object.entries(pkgs).sort(([a], [b]) => (a === '' ? -1 : b === '' ? 1 : a < b ? -1 : a > b ? 1 : 0)));
writeFileSync(file, JSON.stringify(lock, null, 2) + '\n');
console.log(`package-lock.json: added ${added} optional entr${added === 1 ? 'y' : 'ies'}`);
