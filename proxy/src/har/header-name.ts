/**
 * Whether a header name is `lower` (a lower-case name) whatever its case: `name.toLowerCase() === lower`
 * without making the lower-cased string. The recorder asks this of every header of every exchange
 * (cookies, content type and encoding, location, page tracking), and names of the same length as the one
 * sought ('accept' and 'cookie', 'connection' and 'set-cookie') each cost a string.
 *
 * ASCII is compared with its case folded; at the first non-ASCII character toLowerCase decides (a
 * few non-ASCII characters lower-case to ASCII, e.g. U+212A KELVIN SIGN to 'k'). Before one, a mismatch is
 * final: toLowerCase maps ASCII to itself or its lower case, position for position.
 */
export function isHeaderName(name: string, lower: string): boolean {
  const n = lower.length;
  if (name.length !== n) return false;
  for (let i = 0; i < n; i++) {
    let c = name.charCodeAt(i);
    if (c >= 0x80) return name.toLowerCase() === lower;
    if (c >= 65 && c <= 90) c |= 0x20;
    if (c !== lower.charCodeAt(i)) return false;
  }
  return true;
}
