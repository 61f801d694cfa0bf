import { GatewayConfigError } from '@svc/gateway-kit/store';
import { describe, expect, it, vi } from 'vitest';
import { DurableCallbackOutbox } from '../src/durable-callback-outbox.ts';
import { DurableJobStore } from '../src/durable-job-store.ts';
import { DurableRecordStore } from '../src/durable-record-store.ts';
import {
  createGatewayWorker,
  type GatewayNamespace,
  type GatewayObjectSettings,
  type GatewayWorkerOptions,
  gatewayObject,
} from '../src/index.ts';

// The option names are checked before any Durable Object exists: outside workerd, a stand-in for
// the one class the package takes from the runtime. (Where a refusal surfaces in a Worker:
// unknown-options.test.ts.)
vi.mock('cloudflare:workers', () => ({ DurableObject: class {} }));

interface Env {
  readonly GATEWAY: GatewayNamespace;
}
const gateway: GatewayObjectSettings<Env>['gateway'] = () => ({
  gateway: { id: 'g', name: 'G' },
  actions: [],
  auth: { tokens: ['t'] },
});
const namespace = (env: Env) => env.GATEWAY;
const WORKER = 'gateway, namespace, shardKey, stores, watchIntervalMs';
const OBJECT = 'gateway, stores, watchIntervalMs';
const STORES = 'prefix, jobs, records, outbox';
const JOBS = 'maxJobs, maxBytes, retentionMs, maxFinishedPerOwner, onListenerError, maxResumes';
const RECORDS = 'maxRecords, maxBytes, maxMembers';
const OUTBOX =
  'leaseMs, pollIntervalMs, maxEntries, maxEntriesPerPrincipal, maxBytesPerPrincipal, ttlMs';

/** createGatewayWorker and gatewayObject with `options` added to valid ones, as from JavaScript. */
const factories = {
  createGatewayWorker: (options: object) =>
    createGatewayWorker<Env>({ gateway, namespace, ...options }),
  gatewayObject: (options: object) => gatewayObject<Env>({ gateway, ...options }),
};

describe('an option name createGatewayWorker or gatewayObject does not know is refused', () => {
  it.each([
    [{ shardkey: () => 'x' }, `createGatewayWorker: unknown option "shardkey" (known: ${WORKER}).`],
    [
      { watchInterval: 1, store: {} },
      `createGatewayWorker: unknown options "watchInterval", "store" (known: ${WORKER}).`,
    ],
    // The object's settings have no routing: namespace and shardKey are the Worker's.
    [
      { namespace, shardKey: () => 'x' },
      `gatewayObject: unknown options "namespace", "shardKey" (known: ${OBJECT}).`,
    ],
  ])('%o', (options, message) => {
    const factory = message.startsWith('gatewayObject') ? 'gatewayObject' : 'createGatewayWorker';
    expect(() => factories[factory](options)).toThrow(new GatewayConfigError(message));
  });

  // Nested: the path after the factory's name, as createGateway words it (`gateway: unknown…`).
  describe.each(Object.keys(factories) as (keyof typeof factories)[])('%s', (factory) => {
    it.each([
      [{ job: { maxJobs: 5 } }, `stores: unknown option "job" (known: ${STORES}).`],
      [{ prefixx: 'gw_', outbox: {} }, `stores: unknown option "prefixx" (known: ${STORES}).`],
      [{ jobs: { maxJob: 5 } }, `stores.jobs: unknown option "maxJob" (known: ${JOBS}).`],
      // What the object sets itself is no option here: it would be overwritten.
      [
        { jobs: { prefix: 'x', now: () => 0, callbackOutbox: {} } },
        `stores.jobs: unknown options "prefix", "now", "callbackOutbox" (known: ${JOBS}).`,
      ],
      [
        { records: { maxJobs: 5 } },
        `stores.records: unknown option "maxJobs" (known: ${RECORDS}).`,
      ],
      [{ outbox: { leaseMss: 1 } }, `stores.outbox: unknown option "leaseMss" (known: ${OUTBOX}).`],
      [
        { outbox: { now: () => 0, ttl: 1 } },
        `stores.outbox: unknown options "now", "ttl" (known: ${OUTBOX}).`,
      ],
    ])('stores: %o', (stores, message) => {
      expect(() => factories[factory]({ stores })).toThrow(
        new GatewayConfigError(`${factory}: ${message}`),
      );
    });

    it.each([
      ['stores', 5, 'the number 5'],
      ['stores', null, 'null'],
      ['stores', [{ jobs: {} }], 'an array'],
      ['stores.jobs', 'maxJobs', 'a string'],
      ['stores.records', true, 'true'],
      ['stores.outbox', [], 'an empty array'],
    ])('%s that is %o, not an object, is refused', (path, value, kind) => {
      const stores = path === 'stores' ? value : { [path.slice('stores.'.length)]: value };
      expect(() => factories[factory]({ stores })).toThrow(
        new GatewayConfigError(`${factory}: ${path} is ${kind}: expected an options object.`),
      );
    });

    it('the message holds no option value (an unknown option may hold a secret)', () => {
      const secret = 'whsec_c2VjcmV0LXNlY3JldC1zZWNyZXQ=';
      for (const options of [
        { signingSecret: secret },
        { stores: { signingSecret: secret } },
        { stores: { jobs: { signingSecret: secret } } },
      ]) {
        const create = () => factories[factory](options);
        expect(create).toThrow(/unknown option "signingSecret"/);
        expect(create).not.toThrow(/c2VjcmV0/);
      }
    });
  });

  it.each([[undefined], [null], [5], ['options'], [[]], [[{ gateway }]]])(
    'options that are not an object (%o) are refused',
    (options) => {
      expect(() => createGatewayWorker(options as never)).toThrow(
        /^createGatewayWorker: options is .*: expected an options object\.$/,
      );
      expect(() => gatewayObject(options as never)).toThrow(
        /^gatewayObject: options is .*: expected an options object\.$/,
      );
    },
  );
});

type Stores = NonNullable<GatewayObjectSettings<Env>['stores']>;
/** Every option of `stores`, each store's too: an option added to a store must be added here. */
const stores: Required<Stores> & {
  readonly jobs: Required<NonNullable<Stores['jobs']>>;
  readonly records: Required<NonNullable<Stores['records']>>;
  readonly outbox: Required<NonNullable<Stores['outbox']>>;
} = {
  prefix: 'gw_',
  jobs: {
    maxJobs: 1,
    maxBytes: 1,
    retentionMs: 1,
    maxFinishedPerOwner: 1,
    onListenerError: () => {},
    maxResumes: 0,
  },
  records: { maxRecords: 1, maxBytes: 1, maxMembers: 1 },
  outbox: {
    leaseMs: 1,
    pollIntervalMs: 1,
    maxEntries: 1,
    maxEntriesPerPrincipal: 1,
    maxBytesPerPrincipal: 1,
    ttlMs: 1,
  },
};

it('every documented option is accepted', () => {
  const worker: Required<GatewayWorkerOptions<Env>> = {
    gateway,
    namespace,
    shardKey: () => 'shard',
    stores,
    watchIntervalMs: 1_000,
  };
  const object: Required<GatewayObjectSettings<Env>> = {
    gateway,
    stores,
    watchIntervalMs: (_env: Env) => 1_000,
  };
  expect(typeof createGatewayWorker(worker).GatewayObject).toBe('function');
  expect(typeof gatewayObject(object)).toBe('function');
  // And each store's options alone, or none.
  for (const name of ['jobs', 'records', 'outbox'] as const)
    expect(typeof gatewayObject({ gateway, stores: { [name]: stores[name] } })).toBe('function');
  expect(typeof createGatewayWorker({ gateway, namespace, stores: {} }).fetch).toBe('function');
  expect(typeof gatewayObject({ gateway })).toBe('function');
});

// A store's option values need no binding either: judged when the factory is called, by the
// store's own rule, in the store's own words after the path (`stores.jobs.maxJobs is …`). Before,
// each object refused them when it started, on every request (unknown-options.test.ts, workerd).
describe('a store option value the store refuses is refused when the factory is called', () => {
  const unchecked = (): never => {
    throw new Error('storage used before the options were checked');
  };
  const storage = { sql: { exec: unchecked }, transactionSync: unchecked } as never;
  const constructors = {
    jobs: ['new DurableJobStore', (options: object) => new DurableJobStore(storage, options)],
    records: [
      'new DurableRecordStore',
      (options: object) => new DurableRecordStore(storage, options),
    ],
    outbox: [
      'new DurableCallbackOutbox',
      (options: object) => new DurableCallbackOutbox(storage, options),
    ],
  } as const;
  /** The store's own refusal of `{ [option]: value }`. */
  const storeRefusal = (store: keyof typeof constructors, option: string, value: unknown) => {
    try {
      constructors[store][1]({ [option]: value });
    } catch (error) {
      if (error instanceof GatewayConfigError) return error.message;
    }
    throw new Error(`${constructors[store][0]} accepted ${option}: ${String(value)}`);
  };
  const cases = [
    ...(['jobs', 'records', 'outbox'] as const).flatMap((store) =>
      Object.keys(stores[store])
        .filter((option) => option !== 'onListenerError')
        .flatMap((option) =>
          [-1, 0.5, Number.NaN, '10'].map((value) => [store, option, value] as const),
        ),
    ),
    ['jobs', 'maxJobs', 0],
    // Called only when a cancel listener throws, in an object, long after the deploy.
    ['jobs', 'onListenerError', 'log'],
    ['jobs', 'onListenerError', null],
    ['jobs', 'onListenerError', 5],
    // A timer holds no longer wait.
    ['outbox', 'pollIntervalMs', 2 ** 31],
  ] as const;

  describe.each(Object.keys(factories) as (keyof typeof factories)[])('%s', (factory) => {
    it.each(cases)('stores.%s.%s: %o', (store, option, value) => {
      const message = storeRefusal(store, option, value).replace(
        `${constructors[store][0]}: ${option} `,
        `${factory}: stores.${store}.${option} `,
      );
      expect(message).toMatch(new RegExp(`^${factory}: stores\\.${store}\\.${option} is `));
      expect(() => factories[factory]({ stores: { [store]: { [option]: value } } })).toThrow(
        new GatewayConfigError(message),
      );
    });

    it.each([0, -1, 1.5, Number.NaN, '1000', 2 ** 31])('watchIntervalMs: %o', (value) => {
      expect(() => factories[factory]({ watchIntervalMs: value })).toThrow(
        new GatewayConfigError(
          `${factory}: watchIntervalMs is ${typeof value === 'string' ? 'a string' : Number.isNaN(value) ? 'NaN' : `the number ${value}`}: expected a positive integer of milliseconds up to 2147483647.`,
        ),
      );
    });

    it('a watchIntervalMs function is not called: it reads the bindings, in each object', () => {
      const watch = vi.fn((_env: Env) => 0);
      expect(typeof factories[factory]({ watchIntervalMs: watch })).toBe(
        factory === 'gatewayObject' ? 'function' : 'object',
      );
      expect(watch).not.toHaveBeenCalled();
    });
  });
});
