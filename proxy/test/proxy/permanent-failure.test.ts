/** Which upstream failures get a 502 (retrying will not fix them) and which close the connection (browsers retry). */
import { describe, expect, it } from 'vitest';
import { isPermanentUpstreamFailure } from '../../src/errors.js';

const err = (code: string, message = code) => Object.assign(new Error(message), { code });

describe('isPermanentUpstreamFailure', () => {
  it.each([
    ['ECONNREFUSED', err('ECONNREFUSED')],
    ['ENOTFOUND', err('ENOTFOUND', 'getaddrinfo ENOTFOUND x.invalid')],
    ['untrusted certificate', err('DEPTH_ZERO_SELF_SIGNED_CERT', 'self-signed certificate')],
    ['unknown issuer', err('UNABLE_TO_VERIFY_LEAF_SIGNATURE', 'unable to verify the first certificate')],
    ['wrong name', err('ERR_TLS_CERT_ALTNAME_INVALID', "Hostname/IP does not match certificate's altnames")],
    ['TLS to a plain-HTTP port', err('ERR_SSL_WRONG_VERSION_NUMBER', 'wrong version number')],
  ])('permanent: %s', (_name, e) => expect(isPermanentUpstreamFailure(e)).toBe(true));

  it.each([
    ['EAI_AGAIN (temporary DNS failure)', err('EAI_AGAIN')],
    ['ECONNRESET', err('ECONNRESET')],
    [
      'reset during the TLS handshake',
      err('ECONNRESET', 'Client network socket disconnected before secure TLS connection was established'),
    ],
    ['head timeout', err('NL_UPSTREAM_TIMEOUT')],
    ['body timeout', err('NL_UPSTREAM_BODY_TIMEOUT')],
    ['invalid HTTP', err('HPE_INVALID_STATUS')],
    ['HTTP/2 stream error', err('ERR_HTTP2_STREAM_ERROR')],
    ['socket hang up', new Error('socket hang up')],
    ['not an error', undefined],
    ['a string', 'boom'],
  ])('transient: %s', (_name, e) => expect(isPermanentUpstreamFailure(e)).toBe(false));
});
