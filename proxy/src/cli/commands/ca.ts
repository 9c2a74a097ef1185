import { loadOrCreateCA } from '../../tls/ca.js';
import { EXIT_OK, type CliCommand } from '../command.js';
import { trustInstructions } from '../../tls/trust.js';
import { dataDirFlag } from '../flags.js';
import { DEFAULT_PORT } from '../../options.js';

export const caCommand: CliCommand = {
  name: 'ca',
  summary: 'print the CA certificate path and the leaf SPKI hash (creates the CA on first use)',
  help: `Usage: netlens ca [--data-dir DIR] [--json]

Prints the path of the Netlens CA certificate (PEM) that clients must trust to
accept intercepted HTTPS, its SHA-256 fingerprint, and the SPKI hash of the
shared leaf key (for Chrome's --ignore-certificate-errors-spki-list).

Flags:
  --data-dir DIR  data directory (default: $NETLENS_DATA_DIR or ~/.local/share/netlens)
  --json          print a JSON object instead of text
`,
  options: { 'data-dir': { type: 'string' }, json: { type: 'boolean' } },
  maxPositionals: 0,
  async run({ values, stdout, stderr, env }) {
    const dataDir = dataDirFlag(values, env);
    const ca = loadOrCreateCA(dataDir, { warn: (message) => void stderr.write(message) });
    if (values.json) {
      stdout.write(JSON.stringify({ certPath: ca.certPath, fingerprint: ca.fingerprint, leafSpkiHash: ca.leafSpkiHash }, null, 2) + '\n');
      return EXIT_OK;
    }
    stdout.write(`CA certificate: ${ca.certPath}\n`);
    stdout.write(`SHA-256 fingerprint: ${ca.fingerprint}\n`);
    stdout.write(`Leaf SPKI hash: ${ca.leafSpkiHash}\n\n`);
    stdout.write(trustInstructions(ca.certPath, ca.leafSpkiHash, { host: '127.0.0.1', port: DEFAULT_PORT }) + '\n');
    return EXIT_OK;
  },
};
