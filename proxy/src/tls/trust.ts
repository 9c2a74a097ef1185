/** Where the proxy listens, as the curl line shows it. */
export interface TrustProxyAddress {
  host: string;
  port: number;
}

/**
 * How to make clients trust the Netlens CA: printed by `netlens ca`, `netlens proxy` and
 * `netlens replay`, and shown in the UI. `proxy` is the address clients are to use.
 */
export function trustInstructions(certPath: string, spkiHash: string, proxy: TrustProxyAddress): string {
  return [
    'To trust intercepted HTTPS:',
    `  curl:     curl -x http://${proxy.host}:${proxy.port} --cacert "${certPath}" https://example.com/`,
    `  Node:     NODE_EXTRA_CA_CERTS="${certPath}"`,
    `  Chrome:   --ignore-certificate-errors-spki-list=${spkiHash} (netlens launches it this way),`,
    '            or import the certificate under Settings → Privacy and security → Security → Manage certificates',
    `  Firefox:  Settings → Certificates → View Certificates → Authorities → Import "${certPath}"`,
    `  Debian:   sudo cp "${certPath}" /usr/local/share/ca-certificates/netlens.crt && sudo update-ca-certificates`,
    '  macOS:    open the file in Keychain Access and set "Always Trust"',
    'The key stays in the data directory (mode 0600); never share it.',
  ].join('\n');
}
