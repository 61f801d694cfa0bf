import { describe, expect, it } from 'vitest';
import { fixtureGateway } from '../../test/fixture-gateway.ts';
import { createTestClient } from '../testing/index.ts';
import { GATEWAY_ERRORS } from './error-catalogue.ts';

describe('GATEWAY_ERRORS', () => {
  it('cannot be changed by code that imports it: the gateway answers from it', async () => {
    const catalogue = GATEWAY_ERRORS as Record<string, { status: number; message: string }>;
    // ES modules run in strict mode: writing to a frozen object throws.
    expect(() => {
      catalogue.unauthorized = { status: 200, message: 'hacked' };
    }).toThrow(TypeError);
    expect(() => {
      catalogue.unauthorized!.status = 200;
    }).toThrow(TypeError);
    const anonymous = createTestClient(fixtureGateway());
    const refused = await anonymous.manifest();
    expect(refused.status).toBe(401);
    expect(refused.body).toMatchObject({ error: { message: 'Missing or invalid bearer token.' } });
  });
});
