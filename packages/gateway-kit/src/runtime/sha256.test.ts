import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { sha256Hex } from './sha256.ts';

async function webCryptoHex(text: string): Promise<string> {
  const digest = await crypto.subtle.digest('SHA-256', new TextEncoder().encode(text));
  return [...new Uint8Array(digest)].map((byte) => byte.toString(16).padStart(2, '0')).join('');
}

describe('sha256Hex', () => {
  it('gives the FIPS 180-4 example digests', () => {
    expect(sha256Hex('abc')).toBe(
      'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad',
    );
    expect(sha256Hex('')).toBe('e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855');
    expect(sha256Hex('abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq')).toBe(
      '248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1',
    );
  });

  it('agrees with Web Crypto at every padding boundary and past the shared buffer', async () => {
    // 55/56 and 119/120 bytes: the length field fits in the last block or needs another one.
    for (const length of [1, 55, 56, 63, 64, 65, 119, 120, 1_365, 1_366, 4_096, 70_000]) {
      const text = 'x'.repeat(length);
      expect(sha256Hex(text), `${length} bytes`).toBe(await webCryptoHex(text));
    }
  });

  it('agrees with Web Crypto on any string, lone surrogates and multi-byte characters included', async () => {
    await fc.assert(
      fc.asyncProperty(fc.string({ unit: 'binary', maxLength: 2_000 }), async (text) => {
        expect(sha256Hex(text)).toBe(await webCryptoHex(text));
      }),
      { numRuns: 300 },
    );
  });

  it('leaves nothing of a long text behind for the next, shorter one', async () => {
    sha256Hex('€'.repeat(1_300));
    expect(sha256Hex('abc')).toBe(await webCryptoHex('abc'));
  });
});
