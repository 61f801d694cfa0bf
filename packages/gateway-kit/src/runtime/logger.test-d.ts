import type { Logger } from 'pino';
import { describe, expectTypeOf, it } from 'vitest';
import type { GatewayLogger } from '../index.ts';

describe('GatewayLogger', () => {
  it('is satisfied by console and by a pino logger', () => {
    expectTypeOf(console).toExtend<GatewayLogger>();
    expectTypeOf<Logger>().toExtend<GatewayLogger>();
  });

  it('needs only error', () => {
    expectTypeOf({ error: (_message: string) => {} }).toExtend<GatewayLogger>();
    expectTypeOf({ warn: (_message: string) => {} }).not.toExtend<GatewayLogger>();
  });
});
