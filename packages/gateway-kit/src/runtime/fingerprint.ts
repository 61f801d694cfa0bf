import { sha256 } from '@noble/hashes/sha2.js';
import { bytesToHex } from '@noble/hashes/utils.js';

const encoder = new TextEncoder();

/**
 * JSON with object keys sorted at every level, so that two requests meaning the same thing have
 * the same text whatever order their keys came in.
 *
 * @example
 * canonicalJson({ b: 1, a: [{ d: 2, c: 3 }] }); // '{"a":[{"c":3,"d":2}],"b":1}'
 */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.keys(value)
      .sort()
      .filter((key) => (value as Record<string, unknown>)[key] !== undefined)
      .map(
        (key) => `${JSON.stringify(key)}:${canonicalJson((value as Record<string, unknown>)[key])}`,
      );
    return `{${entries.join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

/**
 * Lower-case hex SHA-256 of a string, computed synchronously (`@noble/hashes`, plain JavaScript):
 * Web Crypto's digest is asynchronous and, on Node, a thread-pool round trip per call, which cost
 * an idempotent invoke about 5× a plain one.
 */
export function sha256Hex(text: string): string {
  return bytesToHex(sha256(encoder.encode(text)));
}

/** A random identifier with a readable prefix, e.g. `job_3f9c…` (a v4 UUID: 122 random bits). */
export function randomId(prefix: string): string {
  return `${prefix}_${crypto.randomUUID().replaceAll('-', '')}`;
}
