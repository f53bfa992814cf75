/**
 * RFC 5849 3.6: UTF-8, then every byte outside RFC 3986's unreserved set
 * (ALPHA, DIGIT, "-", ".", "_", "~") as %XX with uppercase hex. Not
 * encodeURIComponent, which leaves ! ' ( ) * alone, and not form encoding,
 * which writes a space as "+": both are classic reasons a signature fails.
 */
export function percentEncode(value: string): string {
  let out = '';
  for (const byte of Buffer.from(value, 'utf8')) {
    const unreserved =
      (byte >= 0x30 && byte <= 0x39) ||
      (byte >= 0x41 && byte <= 0x5a) ||
      (byte >= 0x61 && byte <= 0x7a) ||
      byte === 0x2d ||
      byte === 0x2e ||
      byte === 0x5f ||
      byte === 0x7e;
    out += unreserved ? String.fromCharCode(byte) : `%${byte.toString(16).toUpperCase().padStart(2, '0')}`;
  }
  return out;
}

/** The inverse, for the Authorization header's names and values (RFC 5849 3.5.1); undefined when the text is not valid percent-encoded UTF-8. "+" stays "+": this is not form encoding. */
export function percentDecode(value: string): string | undefined {
  try {
    return decodeURIComponent(value);
  } catch {
    return undefined;
  }
}
