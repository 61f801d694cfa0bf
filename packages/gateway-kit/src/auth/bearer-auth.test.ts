import fc from 'fast-check';
import * as v from 'valibot';
import { describe, expect, it } from 'vitest';
import { fixtureGateway, ROTATED_TOKEN, TOKEN } from '../../test/fixture-gateway.ts';
import { ErrorEnvelopeSchema } from '../contract/index.ts';
import { createTestClient } from '../testing/index.ts';
import { bearerToken, createAuthenticator } from './bearer-auth.ts';

const gateway = fixtureGateway();

async function manifestWith(authorization: string | undefined) {
  const headers: Record<string, string> = authorization === undefined ? {} : { authorization };
  return createTestClient(gateway).request('/v1/manifest', { headers });
}

describe('bearer authentication', () => {
  it.each([
    ['no header', undefined],
    ['a wrong token', 'Bearer wrong-token'],
    ['a wrong scheme', `Basic ${TOKEN}`],
    ['a token without scheme', TOKEN],
    ['an empty token', 'Bearer '],
    ['only spaces', 'Bearer    '],
    ['a 10 KB token', `Bearer ${'a'.repeat(10 * 1024)}`],
    ['a prefix of the token', `Bearer ${TOKEN.slice(0, -1)}`],
    ['the token plus a character', `Bearer ${TOKEN}x`],
  ])('answers the same 401 for %s', async (_, authorization) => {
    const response = await manifestWith(authorization);
    expect(response.status).toBe(401);
    expect(response.headers.get('www-authenticate')).toBe('Bearer');
    expect(response.body).toEqual({
      error: {
        code: 'unauthorized',
        message: 'Missing or invalid bearer token.',
        retryable: false,
      },
    });
    expect(v.is(ErrorEnvelopeSchema, response.body)).toBe(true);
  });

  it('accepts every listed token (rotation) with a case-insensitive scheme', async () => {
    for (const authorization of [`Bearer ${TOKEN}`, `bearer ${ROTATED_TOKEN}`, `BEARER ${TOKEN}`]) {
      expect((await manifestWith(authorization)).status).toBe(200);
    }
  });

  it('requires auth on every route', async () => {
    const anonymous = createTestClient(gateway);
    for (const response of [
      await anonymous.manifest(),
      await anonymous.invoke({}),
      await anonymous.job('j'),
      await anonymous.cancel('j'),
    ]) {
      expect(response.status).toBe(401);
    }
  });

  const NO_HEADERS = { header: () => undefined };

  it('maps static tokens to their principals; plain strings share the default principal', async () => {
    const authenticate = createAuthenticator({
      tokens: ['shared-a', 'shared-b', { token: 'ops-token', principal: { id: 'ops' } }],
    });
    expect(await authenticate('Bearer shared-a', NO_HEADERS)).toEqual({ id: 'default' });
    expect(await authenticate('Bearer shared-b', NO_HEADERS)).toEqual({ id: 'default' });
    expect(await authenticate('Bearer ops-token', NO_HEADERS)).toEqual({ id: 'ops' });
    expect(await authenticate('Bearer nobody', NO_HEADERS)).toBeNull();
  });

  it('uses verify() for custom schemes and refuses when it returns null', async () => {
    const verified = fixtureGateway({
      auth: { verify: (token) => (token === 'jwt-ok' ? { id: 'svc' } : null) },
    });
    expect((await createTestClient(verified, { token: 'jwt-ok' }).manifest()).status).toBe(200);
    expect((await createTestClient(verified, { token: 'jwt-bad' }).manifest()).status).toBe(401);
  });

  it('answers 500, not a crash, when verify() throws', async () => {
    const broken = fixtureGateway({
      auth: {
        verify: () => {
          throw new Error('identity provider down');
        },
      },
    });
    const response = await createTestClient(broken, { token: 'x' }).manifest();
    expect(response.status).toBe(500);
    expect(JSON.stringify(response.body)).not.toContain('identity provider');
  });

  it('answers 500 and logs why when verify() returns a principal id the stores cannot index (empty, over 512 characters)', async () => {
    const logged: unknown[] = [];
    const verified = fixtureGateway({
      auth: {
        verify: (token) => ({
          id: token === 'long' ? 'u'.repeat(513) : token === 'edge' ? 'u'.repeat(512) : '',
        }),
      },
      logger: { error: (_message, fields) => logged.push(fields?.error) },
    });
    expect((await createTestClient(verified, { token: 'edge' }).manifest()).status).toBe(200);
    for (const token of ['long', 'empty']) {
      const response = await createTestClient(verified, { token }).manifest();
      expect(response.status).toBe(500);
      expect(response.body).toMatchObject({ error: { code: 'internal_error' } });
    }
    expect(logged.map((error) => (error as Error).message)).toEqual([
      'auth.verify returned a principal id of 513 characters: expected 1 to 512.',
      'auth.verify returned a principal id of 0 characters: expected 1 to 512.',
    ]);
  });

  it.each([
    ['empty', ''],
    ['over 512 characters', 'p'.repeat(513)],
  ])('refuses a static token whose principal id is %s, at createGateway', (_, id) => {
    expect(() =>
      fixtureGateway({ auth: { tokens: [{ token: TOKEN, principal: { id } }] } }),
    ).toThrow(
      'createGateway: auth.tokens[0].principal is an object: expected { id: string } with an id of 1 to 512 characters.',
    );
  });

  it('never accepts a token other than the configured ones (property)', async () => {
    const authenticate = createAuthenticator({ tokens: [TOKEN] });
    await fc.assert(
      fc.asyncProperty(fc.string({ maxLength: 64 }), async (candidate) => {
        fc.pre(candidate.trim() !== TOKEN);
        expect(await authenticate(`Bearer ${candidate}`, NO_HEADERS)).toBeNull();
      }),
    );
  });

  it('extracts bearer tokens strictly', () => {
    expect(bearerToken('Bearer abc')).toBe('abc');
    expect(bearerToken('bearer   abc  ')).toBe('abc');
    expect(bearerToken('Bearerabc')).toBeUndefined();
    expect(bearerToken('Token abc')).toBeUndefined();
    expect(bearerToken(undefined)).toBeUndefined();
  });
});
