/**
 * The CA's files on disk: `dataDir/ca/{netlens-ca.pem, netlens-ca.key, leaf.key}`.
 *
 * Why a whole directory is published at once: users trust one CA, so two
 * processes starting together on an empty data directory must end up with the
 * same one, and no reader may ever see a key without its certificate. A new CA
 * (key, certificate and shared leaf key) is written and fsynced into a private
 * temporary directory next to `ca/`, then renamed onto `ca/`. rename(2) of a
 * directory is atomic and fails when the target is a non-empty directory, so
 * exactly one creator wins; the others delete their copy and load the winner's.
 * A process killed while creating leaves only its temporary directory, which
 * the next start removes once that process is gone.
 *
 * Why a missing file is an error and not a reason to create a new CA: the
 * certificate is in users' trust stores. Silently replacing it would break every
 * client that trusts it, so only a directory holding neither CA file is filled.
 */
import fs from 'node:fs';
import path from 'node:path';
import { ErrorCodes, NetlensError } from '../errors.js';

export const CA_FILE_NAMES = { cert: 'netlens-ca.pem', key: 'netlens-ca.key', leaf: 'leaf.key' } as const;

export interface StoredCA {
  caKeyPem: string;
  certPem: string;
  leafKeyPem: string;
}

export interface CAGenerators {
  /** A new CA key and its self-signed certificate (PEM). */
  ca(): { keyPem: string; certPem: string };
  /** A new shared leaf key (PEM). */
  leaf(): string;
}

/** Temporary directories of creators: `.ca-new-<pid>-<random>` in the data directory. */
const TEMP_PREFIX = '.ca-new-';
/** A temporary directory older than this is removed even if its pid is alive (pid reused). */
const STALE_TEMP_MS = 60 * 60 * 1000;
/** Rounds of "look, create, publish": a loser's next look finds the winner's CA. */
const MAX_ATTEMPTS = 5;

/** Key files whose loose mode was fixed (and reported) in this process. */
const fixedModes = new Set<string>();
const onWindows = process.platform === 'win32';

function writeDurable(file: string, data: string, mode: number, flag = 'wx'): void {
  const fd = fs.openSync(file, flag, mode);
  try {
    fs.writeFileSync(fd, data);
    fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
}

function fsyncDir(dir: string): void {
  // Makes a rename or link durable; directories cannot be opened this way on Windows.
  if (onWindows) return;
  const fd = fs.openSync(dir, 'r');
  try {
    fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Removes temporary CA directories left by creators that were killed. */
function removeStaleTemps(dataDir: string): void {
  for (const name of fs.readdirSync(dataDir)) {
    if (!name.startsWith(TEMP_PREFIX)) continue;
    const full = path.join(dataDir, name);
    const pid = Number(name.slice(TEMP_PREFIX.length).split('-')[0]);
    const age = Date.now() - (fs.statSync(full, { throwIfNoEntry: false })?.mtimeMs ?? 0);
    if (pid === process.pid || (alive(pid) && age < STALE_TEMP_MS)) continue;
    fs.rmSync(full, { recursive: true, force: true });
  }
}

type DirState = { kind: 'absent' | 'empty' | 'complete' } | { kind: 'incomplete'; missing: string[]; present: string[] };

function inspect(dir: string): DirState {
  let names: string[];
  try {
    names = fs.readdirSync(dir);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return { kind: 'absent' };
    throw err;
  }
  if (names.length === 0) return { kind: 'empty' };
  const missing = [CA_FILE_NAMES.cert, CA_FILE_NAMES.key].filter((n) => !names.includes(n));
  if (missing.length === 0) return { kind: 'complete' };
  return { kind: 'incomplete', missing, present: names };
}

function incompleteError(dir: string, state: { missing: string[]; present: string[] }): NetlensError {
  const what = state.missing.map((n) => path.join(dir, n)).join(' and ');
  const verb = state.missing.length > 1 ? 'are' : 'is';
  return new NetlensError(
    ErrorCodes.CA_INCOMPLETE,
    `The Netlens CA in ${dir} is incomplete: ${what} ${verb} missing (the directory holds ${state.present.join(', ')}). ` +
      'Netlens does not replace a CA that clients may trust. Restore the missing file from a backup, ' +
      `or delete ${dir} to create a new CA (and trust the new certificate again).`,
  );
}

function removeEmptyDir(dir: string): void {
  try {
    fs.rmdirSync(dir);
  } catch (err) {
    // Gone already, or another process filled it: the next look decides.
    const code = (err as NodeJS.ErrnoException).code;
    if (code !== 'ENOENT' && code !== 'ENOTEMPTY' && code !== 'EEXIST') throw err;
  }
}

/** Writes a whole new CA into a temporary directory and renames it onto `dir`. Returns false when another process won. */
function publishNewCA(dataDir: string, dir: string, gen: CAGenerators): boolean {
  const tmp = path.join(dataDir, `${TEMP_PREFIX}${process.pid}-${Math.random().toString(36).slice(2)}`);
  fs.mkdirSync(tmp, { mode: 0o700 });
  try {
    const ca = gen.ca();
    writeDurable(path.join(tmp, CA_FILE_NAMES.key), ca.keyPem, 0o600);
    writeDurable(path.join(tmp, CA_FILE_NAMES.leaf), gen.leaf(), 0o600);
    writeDurable(path.join(tmp, CA_FILE_NAMES.cert), ca.certPem, 0o644);
    fsyncDir(tmp);
    try {
      fs.renameSync(tmp, dir);
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      // ENOTEMPTY/EEXIST: another process published first. EPERM/EACCES: Windows, same case.
      if (code === 'ENOTEMPTY' || code === 'EEXIST' || code === 'EPERM' || code === 'EACCES') return false;
      throw err;
    }
    fsyncDir(dataDir);
    return true;
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true });
  }
}

/** Creates the shared leaf key of an older CA directory that has none: written aside, then linked (fails if one appeared). */
function ensureLeafKey(dir: string, gen: CAGenerators): void {
  const leaf = path.join(dir, CA_FILE_NAMES.leaf);
  if (fs.existsSync(leaf)) return;
  const tmp = path.join(dir, `.${CA_FILE_NAMES.leaf}.${process.pid}.${Math.random().toString(36).slice(2)}.tmp`);
  try {
    writeDurable(tmp, gen.leaf(), 0o600);
    try {
      fs.linkSync(tmp, leaf);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    }
  } finally {
    fs.rmSync(tmp, { force: true });
  }
}

/** A key readable by group or others is made 0600, and the user told once per process. */
function secureKeyMode(file: string, warn: (message: string) => void): void {
  if (onWindows) return;
  const mode = fs.statSync(file).mode & 0o777;
  if ((mode & 0o077) === 0) return;
  fs.chmodSync(file, 0o600);
  if (fixedModes.has(file)) return;
  fixedModes.add(file);
  warn(
    `netlens: ${file} was readable by other users (mode 0${mode.toString(8)}); it is now 0600. ` +
      `If someone else could have copied it, delete ${path.dirname(file)} to create a new CA and trust the new one.\n`,
  );
}

/**
 * Loads the CA files from `dataDir/ca`, creating all of them when the directory
 * is absent or empty. Throws NL_CA_INCOMPLETE when one CA file is missing and
 * NL_CA_STORE when the files cannot be read or written.
 */
export function loadOrCreateCAFiles(dataDir: string, gen: CAGenerators, warn: (message: string) => void): StoredCA {
  const dir = path.join(dataDir, 'ca');
  try {
    fs.mkdirSync(dataDir, { recursive: true });
    removeStaleTemps(dataDir);
    let state = inspect(dir);
    for (let attempt = 0; state.kind !== 'complete' && attempt < MAX_ATTEMPTS; attempt++) {
      if (state.kind === 'incomplete') throw incompleteError(dir, state);
      if (state.kind === 'empty') removeEmptyDir(dir); // e.g. made by an older version killed while generating
      publishNewCA(dataDir, dir, gen);
      state = inspect(dir);
    }
    if (state.kind === 'incomplete') throw incompleteError(dir, state);
    if (state.kind !== 'complete') throw new Error(`no CA appeared in ${dir} after ${MAX_ATTEMPTS} attempts`);
    if (!onWindows) fs.chmodSync(dir, 0o700);
    ensureLeafKey(dir, gen);
    const keyPath = path.join(dir, CA_FILE_NAMES.key);
    const leafPath = path.join(dir, CA_FILE_NAMES.leaf);
    secureKeyMode(keyPath, warn);
    secureKeyMode(leafPath, warn);
    return {
      caKeyPem: fs.readFileSync(keyPath, 'utf8'),
      certPem: fs.readFileSync(path.join(dir, CA_FILE_NAMES.cert), 'utf8'),
      leafKeyPem: fs.readFileSync(leafPath, 'utf8'),
    };
  } catch (err) {
    if (err instanceof NetlensError) throw err;
    throw new NetlensError(
      ErrorCodes.CA_STORE,
      `Cannot create or read the Netlens CA in ${dir}: ${(err as Error).message}. Check that the data directory is writable, or pass --data-dir DIR.`,
      { cause: err },
    );
  }
}
