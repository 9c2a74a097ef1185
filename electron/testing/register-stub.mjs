// `node --import ./register-stub.mjs`: resolves 'electron' to electron-stub.mjs.
import { register } from 'node:module';

register(
  'data:text/javascript,' +
    encodeURIComponent(
      `export async function resolve(s, c, next) { return s === 'electron' ? { url: ${JSON.stringify(new URL('./electron-stub.mjs', import.meta.url).href)}, shortCircuit: true } : next(s, c); }`,
    ),
);
