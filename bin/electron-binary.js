// Where the electron package's binary is, or why there is none — without loading the
// package: since Electron 45, `require('electron')` downloads the binary from GitHub
// when it is missing (electron/index.js), and Netlens never reaches out to the network
// to decide how to start. Same lookup as that file: path.txt names the executable
// under dist/.
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';

/** @returns {{ binary: string } | { reason: string }} */
export function installedElectron(fromUrl = import.meta.url) {
  let dir;
  try {
    dir = path.dirname(createRequire(fromUrl).resolve('electron/package.json'));
  } catch {
    return { reason: 'the electron package is not installed' };
  }
  const pathFile = path.join(dir, 'path.txt');
  if (!fs.existsSync(pathFile)) return { reason: 'the electron package was installed without its binary' };
  const binary = path.join(dir, 'dist', fs.readFileSync(pathFile, 'utf8').trim());
  return fs.existsSync(binary) ? { binary } : { reason: `${binary} does not exist` };
}
