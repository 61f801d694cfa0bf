import { describe, expect, it } from 'vitest';
import { fixtureGateway, ROTATED_TOKEN, TOKEN } from '../../test/fixture-gateway.ts';

const asking = (authorization?: string): Request =>
  new Request('http://gateway.test/anything', {
    headers: authorization === undefined ? {} : { authorization },
  });

describe('gateway.authenticate', () => {
  it('names the principal of every spelling of a valid token, and of rotated tokens', async () => {
    const gateway = fixtureGateway({
      auth: {
        tokens: [TOKEN, ROTATED_TOKEN, { token: 'other-token', principal: { id: 'other' } }],
      },
    });
    for (const authorization of [
      `Bearer ${TOKEN}`,
      `bearer ${TOKEN}`,
      `BEARER    ${TOKEN}`,
      `Bearer ${ROTATED_TOKEN}`,
    ]) {
      expect((await gateway.authenticate(asking(authorization))).principal?.id).toBe('default');
    }
    expect((await gateway.authenticate(asking('Bearer other-token'))).principal?.id).toBe('other');
  });

  it('answers a refusal as the routes would: 401 with WWW-Authenticate', async () => {
    const gateway = fixtureGateway();
    for (const authorization of [undefined, 'Bearer wrong', `Basic ${TOKEN}`]) {
      const { refusal } = await gateway.authenticate(asking(authorization));
      expect(refusal?.status).toBe(401);
      expect(refusal?.headers.get('www-authenticate')).toBe('Bearer');
      expect(await refusal?.json()).toMatchObject({ error: { code: 'unauthorized' } });
    }
  });

  it('answers 500 without the error when verify throws, and never rejects', async () => {
    const gateway = fixtureGateway({
      auth: {
        verify: () => {
          throw new Error('secret detail');
        },
      },
    });
    const { refusal } = await gateway.authenticate(asking('Bearer x'));
    expect(refusal?.status).toBe(500);
    expect(await refusal?.text()).not.toContain('secret detail');
  });
});
