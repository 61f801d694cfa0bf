import { describe, expect, it } from 'vitest';
import { redact } from './redact.ts';

describe('redact', () => {
  it('replaces a token wherever a string holds it, deeply', () => {
    const token = 'gwTok_LIVE_5566';
    expect(redact({ error: { message: `token ${token} refused` }, list: [token] }, token)).toEqual({
      error: { message: 'token [redacted] refused' },
      list: ['[redacted]'],
    });
  });

  it('leaves answers whole for a token shorter than 8 characters (it would match ordinary text)', () => {
    const manifest = { gateway: { url: 'http://gateway.test' } };
    expect(redact(manifest, 't')).toEqual(manifest);
  });
});
