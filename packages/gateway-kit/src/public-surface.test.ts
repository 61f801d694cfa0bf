import { readFileSync } from 'node:fs';
import { expect, it } from 'vitest';

/** Every name an entry file exports, types included. */
function exportedNames(file: string): string[] {
  const source = readFileSync(new URL(file, import.meta.url), 'utf8');
  const names: string[] = [];
  for (const match of source.matchAll(/export (?:type )?\{([^}]*)\}/g))
    for (const item of match[1]!.split(','))
      if (item.trim())
        names.push(
          item
            .trim()
            .replace(/^type /, '')
            .split(' as ')
            .pop()!
            .trim(),
        );
  expect(source).not.toMatch(/export \*/);
  return names;
}

it('the root entry is the action author and operator API: at most 50 names', () => {
  const names = exportedNames('./index.ts');
  expect(names.length).toBeLessThanOrEqual(50);
  expect(names).toContain('defineAction');
  expect(names).toContain('createGateway');
  // Wire schemas, store and callback internals live in their own subpaths.
  for (const moved of ['InvokeRequestSchema', 'JobStore', 'CallbackDispatcher', 'deliverCallback'])
    expect(names).not.toContain(moved);
});

it('subpaths carry the contract, the store API and the callback engine', async () => {
  const contract = await import('./contract/index.ts');
  const store = await import('./store/index.ts');
  const callbacks = await import('./callbacks/index.ts');
  expect(Object.keys(contract)).toContain('InvokeRequestSchema');
  expect(Object.keys(contract)).toContain('GATEWAY_ERRORS');
  expect(Object.keys(store)).toEqual(
    expect.arrayContaining(['StoreUnavailableError', 'isStoreUnavailableError', 'MemoryJobStore']),
  );
  expect(Object.keys(callbacks)).toEqual(
    expect.arrayContaining(['CallbackDispatcher', 'deliverCallback', 'checkCallbackUrl']),
  );
  const error = new store.StoreUnavailableError('down');
  expect(store.isStoreUnavailableError(error)).toBe(true);
  // Recognised from another copy of the package too (by name).
  expect(
    store.isStoreUnavailableError(Object.assign(new Error('x'), { name: 'StoreUnavailableError' })),
  ).toBe(true);
});

it('every error the package exports extends GatewayKitError, which isGatewayKitError recognises', async () => {
  const entries = await Promise.all([
    import('./index.ts'),
    import('./store/index.ts'),
    import('./callbacks/index.ts'),
  ]);
  const errorClasses = entries
    .flatMap((entry) => Object.values(entry))
    .filter(
      (value): value is new (...args: never[]) => Error =>
        typeof value === 'function' && value.prototype instanceof Error,
    )
    // Not an error of the kit: what an action throws (through reject()) to refuse a request; the
    // gateway turns it into a `rejected` answer, and isActionRejection recognises it.
    .filter((value) => value.name !== 'ActionRejection');
  expect(new Set(errorClasses.map((error) => error.name))).toEqual(
    new Set([
      'GatewayKitError',
      'GatewayConfigError',
      'CallbackConfigError',
      'ApprovalDecisionError',
      'StoreUnavailableError',
      'JobStoreFullError',
      'JobQuotaError',
      'RecordStoreFullError',
    ]),
  );
  const { GatewayKitError, isGatewayKitError } = entries[0];
  for (const errorClass of errorClasses) {
    expect(errorClass === GatewayKitError || errorClass.prototype instanceof GatewayKitError).toBe(
      true,
    );
  }
  // Another copy of the package (its CJS build beside the ESM one) is recognised too.
  const foreign = Object.assign(new Error('x'), { isGatewayKitError: true });
  expect(isGatewayKitError(foreign)).toBe(true);
  expect(isGatewayKitError(new Error('x'))).toBe(false);
});

it('the /fastify subpath is the plugin and its logger adapter only', () => {
  expect(exportedNames('./adapters/fastify/index.ts').sort()).toEqual([
    'FastifyGatewayOptions',
    'fastifyGateway',
    'fastifyLogger',
  ]);
});
