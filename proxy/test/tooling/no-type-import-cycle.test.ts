/** The local lint rule netlens/no-type-import-cycle (eslint-rules/), run by ESLint on files on disk. */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ESLint } from 'eslint';
import tseslint from 'typescript-eslint';
import { createNodeResolver } from 'eslint-plugin-import-x';
import rule from '../../../eslint-rules/no-type-import-cycle.js';

let dir: string;

const FILES: Record<string, string> = {
  // A type cycle: a --type--> b --value--> a.
  'a.ts': "import type { B } from './b.js';\nexport const a = 1;\nexport type A = B | number;\n",
  'b.ts': "import { a } from './a.js';\nexport type B = string;\nexport const b = a + 1;\n",
  // A type import with no way back: fine.
  'c.ts': "import type { D } from './d.js';\nexport const c: D = 'x';\n",
  'd.ts': 'export type D = string;\n',
  // A longer route: e --type--> f --> g --type--> e.
  'e.ts': "import type { F } from './f.js';\nexport type E = F;\n",
  'f.ts': "import { g } from './g.js';\nexport type F = typeof g;\n",
  'g.ts': "import type { E } from './e.js';\nexport const g = 1 as unknown as E | 1;\n",
};

async function lint(file: string) {
  const eslint = new ESLint({
    cwd: dir,
    overrideConfigFile: true,
    overrideConfig: [
      {
        files: ['**/*.ts'],
        languageOptions: { parser: tseslint.parser },
        plugins: { netlens: { rules: { 'no-type-import-cycle': rule } } },
        settings: {
          'import-x/resolver-next': [createNodeResolver({ extensions: ['.ts', '.js'], extensionAlias: { '.js': ['.ts', '.js'] } })],
        },
        rules: { 'netlens/no-type-import-cycle': 'error' },
      },
    ],
  });
  const [result] = await eslint.lintFiles([path.join(dir, file)]);
  return result!.messages.map((m) => m.message);
}

beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'nl-type-cycle-'));
  for (const [name, text] of Object.entries(FILES)) fs.writeFileSync(path.join(dir, name), text);
});
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

describe('netlens/no-type-import-cycle', () => {
  it('reports a type-only import whose target imports the file back, with the route', async () => {
    expect(await lint('a.ts')).toEqual(['Type import cycle: a.ts → b.ts → a.ts. Move the shared types to a module both can import.']);
  });

  it('leaves the value import of the same cycle to import-x/no-cycle', async () => {
    expect(await lint('b.ts')).toEqual([]);
  });

  it('accepts a type import with no way back', async () => {
    expect(await lint('c.ts')).toEqual([]);
  });

  it('follows routes through several modules', async () => {
    expect(await lint('e.ts')).toEqual([
      'Type import cycle: e.ts → f.ts → g.ts → e.ts. Move the shared types to a module both can import.',
    ]);
    expect(await lint('g.ts')).toEqual([
      'Type import cycle: g.ts → e.ts → f.ts → g.ts. Move the shared types to a module both can import.',
    ]);
  });
});
