import { createGateway } from '@svc/gateway-kit';
import { expect, it } from 'vitest';
import { checkAuth } from '../src/refused-config.ts';

// The router checks `auth` before it reads a token (no object has created the gateway yet): the
// same refusals, with the same messages, as createGateway's, and never the token itself.
const cases: Record<string, unknown> = {
  'a token unset': { tokens: ['good-token', undefined] },
  'an empty token': { tokens: [''] },
  'a token with a line break': { tokens: ['secret-token\n'] },
  'a number': { tokens: [5] },
  null: { tokens: [null] },
  'no tokens': { tokens: [] },
  'tokens unset': { tokens: undefined },
  'tokens not a list': { tokens: 'secret-token' },
  'an entry whose token is unset': { tokens: [{ token: undefined, principal: { id: 'a' } }] },
  'an entry without principal': { tokens: [{ token: 'secret-token' }] },
  'a principal without id': { tokens: [{ token: 'secret-token', principal: {} }] },
  'a principal with an empty id': { tokens: [{ token: 'secret-token', principal: { id: '' } }] },
  'a principal id over 512 characters': {
    tokens: [{ token: 'secret-token', principal: { id: 'p'.repeat(513) } }],
  },
  'tokens and verify': { tokens: ['secret-token'], verify: () => null },
  'verify not a function': { verify: 'secret-token' },
  neither: {},
  'auth unset': undefined,
};

const refusal = (check: () => unknown): string | undefined => {
  try {
    check();
    return undefined;
  } catch (error) {
    return `${(error as Error).name}: ${(error as Error).message}`;
  }
};

it.each(Object.entries(cases))('%s: refused as createGateway refuses it', (_name, auth) => {
  const expected = refusal(() =>
    createGateway({ gateway: { id: 'a', name: 'A' }, actions: [], auth: auth as never }),
  );
  expect(expected).toMatch(/^GatewayConfigError: createGateway: auth/);
  expect(refusal(() => checkAuth(auth))).toBe(expected);
  expect(expected).not.toContain('secret-token');
});

it('accepts what createGateway accepts', () => {
  for (const auth of [
    { tokens: ['a', { token: 'b', principal: { id: 'bob', team: 'x' } }] },
    { verify: () => null },
  ])
    expect(refusal(() => checkAuth(auth))).toBeUndefined();
});
