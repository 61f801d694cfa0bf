/**
 * The UTF-8 byte length of a string, counted without encoding it.
 *
 * @example
 * utf8Length('é'); // 2
 */
export function utf8Length(text: string): number {
  let bytes = text.length;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code < 0x80) continue;
    if (code < 0x800) bytes += 1;
    else if (code >= 0xd800 && code <= 0xdbff && i + 1 < text.length) {
      const next = text.charCodeAt(i + 1);
      // A surrogate pair: 4 bytes for 2 code units.
      if (next >= 0xdc00 && next <= 0xdfff) {
        bytes += 2;
        i += 1;
      } else bytes += 2;
    } else bytes += 2;
  }
  return bytes;
}

/**
 * The size in bytes of a value serialised as JSON (UTF-8), as a store would keep it.
 *
 * @example
 * jsonByteLength({ a: 'é' }); // 10
 */
export function jsonByteLength(value: unknown): number {
  return utf8Length(JSON.stringify(value) ?? '');
}
