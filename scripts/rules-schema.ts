/**
 * Writes docs/rules.schema.json from the schema the proxy validates with (proxy/src/rules/schema.ts),
 * so the published schema never drifts from the code. `--check` exits 1 when the file is stale.
 *
 *   npx tsx scripts/rules-schema.ts [--check]
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { rulesSchema } from '../proxy/src/rules/schema.js';
import { scriptArgs } from '../bench/lib/usage.js';

const USAGE = `Usage: npx tsx scripts/rules-schema.ts [--check]

Writes docs/rules.schema.json from proxy/src/rules/schema.ts. --check: exit 1 if it is stale.
`;
const args = scriptArgs(USAGE, { check: { type: 'boolean' } });

const out = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'docs', 'rules.schema.json');
const text = `${JSON.stringify(rulesSchema, null, 2)}\n`;
if (args.values.check) {
  const current = fs.existsSync(out) ? fs.readFileSync(out, 'utf8') : '';
  if (current !== text) {
    console.error(`${out} is out of date: run npx tsx scripts/rules-schema.ts`);
    process.exit(1);
  }
  console.log(`${out} is up to date`);
} else {
  fs.writeFileSync(out, text);
  console.log(`wrote ${out}`);
}
