import { describe, expectTypeOf, it } from 'vitest';
import { buildSummary, findCustomer } from '../../test/fixtures/reference-gateway.ts';
import { createGatewayClient, type InvokeOutcome } from './create-gateway-client.ts';
import type { ActionInput } from './typed-action.ts';

const client = createGatewayClient({ url: 'http://gateway.test', token: 't' });

describe('typed invoke', () => {
  it('types the input from an action definition', () => {
    expectTypeOf<ActionInput<typeof findCustomer>>().toEqualTypeOf<{
      customerId: string;
      region?: 'eu' | 'us' | undefined;
    }>();
    void client.invoke(findCustomer, { customerId: 'cus_123' });
    // @ts-expect-error customerId must be a string
    void client.invoke(findCustomer, { customerId: 1 });
    // @ts-expect-error pages is required
    void client.invoke(buildSummary, { topic: 'x' });
  });

  it('accepts a free-form object for an action named by id', () => {
    expectTypeOf<ActionInput<'anything'>>().toEqualTypeOf<Record<string, unknown>>();
    void client.invoke('anything', { any: 1 });
  });

  it('answers a union discriminated by status, with a job handle on accepted', () => {
    expectTypeOf<InvokeOutcome['status']>().toEqualTypeOf<
      'completed' | 'accepted' | 'approval_required' | 'rejected'
    >();
    expectTypeOf<Extract<InvokeOutcome, { status: 'accepted' }>['handle']['wait']>().toBeFunction();
  });
});
