/**
 * base64url (RFC 4648 §5, without padding) over bytes, and over text as
 * UTF-8. Written here because core is pure: no Node `Buffer`. Decoding is
 * strict: only the canonical encoding of some bytes is accepted, so every
 * accepted string decodes to exactly one byte sequence and back.
 */

const ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

/** The 6-bit value of each character code, or -1 for a character outside the alphabet. */
const VALUES: readonly number[] = Array.from({ length: 128 }, (_, code) =>
  ALPHABET.indexOf(String.fromCharCode(code)),
);

/** `bytes` as unpadded base64url. */
export function encodeBase64Url(bytes: Uint8Array): string {
  let text = "";
  for (let i = 0; i < bytes.length; i += 3) {
    const chunk = bytes.subarray(i, i + 3);
    const bits = (chunk[0]! << 16) | ((chunk[1] ?? 0) << 8) | (chunk[2] ?? 0);
    const chars = chunk.length + 1;
    for (let c = 0; c < chars; c++) text += ALPHABET[(bits >> (18 - 6 * c)) & 63];
  }
  return text;
}

/** The bytes of canonical unpadded base64url `text`, or `undefined` when it is not that. */
export function decodeBase64Url(text: string): Uint8Array | undefined {
  if (text.length % 4 === 1) return undefined;
  const bytes = new Uint8Array(Math.floor((text.length * 6) / 8));
  let written = 0;
  for (let i = 0; i < text.length; i += 4) {
    const chunk = text.slice(i, i + 4);
    let bits = 0;
    for (let c = 0; c < 4; c++) {
      const value = c < chunk.length ? (VALUES[chunk.charCodeAt(c)] ?? -1) : 0;
      if (value < 0) return undefined;
      bits = (bits << 6) | value;
    }
    const count = chunk.length - 1;
    // The bits below the last whole byte must be zero in a canonical encoding.
    if ((bits & ((1 << (24 - 8 * count)) - 1)) !== 0) return undefined;
    for (let b = 0; b < count; b++) bytes[written++] = (bits >> (16 - 8 * b)) & 255;
  }
  return bytes;
}

/** `text` as UTF-8, then base64url. */
export function encodeUtf8Base64Url(text: string): string {
  return encodeBase64Url(new TextEncoder().encode(text));
}

/** The text whose {@link encodeUtf8Base64Url} is `encoded`, or `undefined` if it is not base64url of UTF-8. */
export function decodeUtf8Base64Url(encoded: string): string | undefined {
  const bytes = decodeBase64Url(encoded);
  if (bytes === undefined) return undefined;
  try {
    return new TextDecoder("utf-8", { fatal: true, ignoreBOM: true }).decode(bytes);
  } catch {
    return undefined;
  }
}
