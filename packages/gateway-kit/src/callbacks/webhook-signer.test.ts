import fc from 'fast-check';
import { Webhook } from 'standardwebhooks';
import { describe, expect, it } from 'vitest';
import { webhookSigner } from './webhook-signer.ts';

const base64 = (bytes: Uint8Array): string => Buffer.from(bytes).toString('base64');

// The reference implementation of Standard Webhooks is the oracle: what it verifies, receivers do.
describe('webhookSigner', () => {
  it('signs as the standardwebhooks library does, for any key, id, time and payload', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.uint8Array({ minLength: 1, maxLength: 64 }),
        fc.boolean(),
        fc.stringMatching(/^[\x21-\x7e]{1,64}$/),
        fc.integer({ min: 0, max: 4_102_444_800 }),
        fc.string({ unit: 'binary', maxLength: 300 }),
        async (key, prefixed, webhookId, seconds, payload) => {
          const secret = `${prefixed ? 'whsec_' : ''}${base64(key)}`;
          const ours = await webhookSigner(secret)!.sign(webhookId, seconds, payload);
          const reference = new Webhook(secret).sign(webhookId, new Date(seconds * 1000), payload);
          expect(ours).toBe(reference);
        },
      ),
      { numRuns: 200 },
    );
  });

  it('a signature the library verifies now, with its own headers', async () => {
    const secret = `whsec_${base64(crypto.getRandomValues(new Uint8Array(24)))}`;
    const seconds = Math.floor(Date.now() / 1000);
    const payload = JSON.stringify({ job: { jobId: 'job_1', status: 'completed' } });
    const signature = await webhookSigner(secret)!.sign('msg_1', seconds, payload);
    const headers = {
      'webhook-id': 'msg_1',
      'webhook-timestamp': String(seconds),
      'webhook-signature': signature,
    };
    expect(new Webhook(secret).verify(payload, headers)).toEqual(JSON.parse(payload));
  });

  it.each([
    ['an empty secret', ''],
    ['the prefix alone', 'whsec_'],
    ['characters outside base64', 'whsec_not base64!'],
    ['base64 cut short', 'whsec_QUJD\x3d\x3dQQ'],
    ['a length no base64 has', 'whsec_QUJDR'],
    ['a trailing newline', 'whsec_QUJD\n'],
    ['half the padding', 'whsec_QUJDRA='],
  ])('is undefined for %s', (_case, secret) => {
    expect(webhookSigner(secret)).toBeUndefined();
  });

  it.each(['whsec_QUJDRA', 'whsec_QUJDRA==', 'whsec_QUJDREU', 'QUJD'])(
    'takes %j (padding optional, prefix optional) with the key the library reads',
    async (secret) => {
      const signature = await webhookSigner(secret)!.sign('id', 1, 'x');
      expect(signature).toBe(new Webhook(secret).sign('id', new Date(1000), 'x'));
    },
  );

  it('keeps signing with every secret, however many a process uses', async () => {
    const secrets = Array.from(
      { length: 40 },
      (_, i) => `whsec_${base64(new Uint8Array([i + 1]))}`,
    );
    const first = await Promise.all(secrets.map((s) => webhookSigner(s)!.sign('id', 1, 'x')));
    const again = await Promise.all(secrets.map((s) => webhookSigner(s)!.sign('id', 1, 'x')));
    expect(again).toEqual(first);
    expect(new Set(first).size).toBe(40);
    expect(first[0]).toBe(new Webhook(secrets[0]!).sign('id', new Date(1000), 'x'));
  });
});
