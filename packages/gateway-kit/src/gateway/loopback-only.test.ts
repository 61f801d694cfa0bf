import { describe, expect, it } from 'vitest';
import { fixtureGateway, TOKEN } from '../../test/fixture-gateway.ts';
import { GatewayConfigError } from '../runtime/gateway-config-error.ts';
import type { GatewayOptions } from './gateway-options.ts';

/** A request as Deno or Bun hand it to `gateway.fetch` on 127.0.0.1:8787, `Host` as sent. */
function served(path: string, headers: Record<string, string>): Request {
  return new Request(`http://127.0.0.1:8787${path}`, {
    headers: { authorization: `Bearer ${TOKEN}`, ...headers },
  });
}

async function codeOf(response: Response): Promise<string | undefined> {
  const body = (await response.json()) as { error?: { code: string } };
  return body.error?.code;
}

describe('loopbackOnly (DNS rebinding, gateway.fetch on loopback)', () => {
  it('is off by default: any Host is served, as before', async () => {
    const gateway = fixtureGateway();
    const response = await gateway.fetch(served('/v1/manifest', { host: 'evil.example' }));
    expect(response.status).toBe(200);
  });

  it('answers 403 forbidden_host to a foreign Host or Origin, before routing and authentication', async () => {
    const gateway = fixtureGateway({ loopbackOnly: true });
    for (const headers of [
      { host: 'evil.example' },
      { host: 'evil.example:8787', authorization: '' },
      { host: 'localhost:8787', origin: 'http://evil.example' },
      { host: 'localhost:8787', origin: 'null' },
      { host: 'a b' },
    ]) {
      for (const path of ['/v1/manifest', '/v1/nothing-here']) {
        const response = await gateway.fetch(served(path, headers));
        expect(response.status, JSON.stringify(headers)).toBe(403);
        expect(await codeOf(response)).toBe('forbidden_host');
      }
    }
  });

  it('serves loopback names, with or without a loopback Origin', async () => {
    const gateway = fixtureGateway({ loopbackOnly: true });
    for (const headers of [
      { host: '127.0.0.1:8787' },
      { host: 'localhost:8787', origin: 'http://localhost:3000' },
      { host: 'app.localhost' },
      { host: '[::1]:8787' },
    ]) {
      const response = await gateway.fetch(served('/v1/manifest', headers));
      expect(response.status, JSON.stringify(headers)).toBe(200);
    }
  });

  it('also serves the names of allowedHosts', async () => {
    const gateway = fixtureGateway({ loopbackOnly: { allowedHosts: ['.example.test'] } });
    expect((await gateway.fetch(served('/v1/manifest', { host: 'dev.example.test' }))).status).toBe(
      200,
    );
    expect((await gateway.fetch(served('/v1/manifest', { host: 'evil.example' }))).status).toBe(
      403,
    );
  });

  it('refuses an option that is not one, naming its path', () => {
    const cases: [unknown, string][] = [
      ['yes', 'createGateway: loopbackOnly is a string'],
      [{ allowedHosts: ['http://dev.example.test'] }, 'loopbackOnly.allowedHosts[0]'],
      [{ allowedHosts: 'dev.example.test' }, 'loopbackOnly.allowedHosts is a string'],
      [{ allowedHost: [] }, 'unknown option "allowedHost"'],
    ];
    for (const [loopbackOnly, message] of cases) {
      expect(() =>
        fixtureGateway({ loopbackOnly } as unknown as Partial<GatewayOptions>),
      ).toThrowError(GatewayConfigError);
      expect(() =>
        fixtureGateway({ loopbackOnly } as unknown as Partial<GatewayOptions>),
      ).toThrowError(message);
    }
  });
});
