import { GatewayConfigError } from '@svc/gateway-kit/store';
import { describe, expect, it } from 'vitest';
import { RedisJobStore, RedisRecordStore } from '../src/index.ts';

// Option checks run in the constructor, before any connection: no Redis needed.
const caps = [0, -1, 1.5, Number.NaN, Number.POSITIVE_INFINITY, '10'];

describe('a cap on what callers make the store keep is a positive integer (0 is refused, never "unbounded")', () => {
  it.each(
    ['maxJobs', 'maxFinishedPerOwner', 'maxPendingCallbacks', 'maxPendingCallbacksPerPrincipal']
      .concat('maxPendingCallbackBytesPerPrincipal')
      .flatMap((option) => caps.map((value) => [option, value] as const)),
  )(
    'new RedisJobStore({ %s: %o }) throws a GatewayConfigError naming the option',
    (option, value) => {
      expect(() => new RedisJobStore({ [option]: value })).toThrow(GatewayConfigError);
      expect(() => new RedisJobStore({ [option]: value })).toThrow(
        new RegExp(`^new RedisJobStore: ${option} is .*: expected a positive integer\\.$`),
      );
    },
  );

  it.each(caps)('new RedisRecordStore({ maxRecords: %o }) throws a GatewayConfigError', (value) => {
    expect(() => new RedisRecordStore({ maxRecords: value as number })).toThrow(
      /^new RedisRecordStore: maxRecords is .*: expected a positive integer\.$/,
    );
  });
});

describe('other options, in the same message style', () => {
  it.each([
    [
      { leaseMs: 0 },
      'new RedisJobStore: leaseMs is the number 0: expected a positive integer (ms).',
    ],
    [
      { sweepIntervalMs: -1 },
      'new RedisJobStore: sweepIntervalMs is the number -1: expected a finite number ≥ 0.',
    ],
    [
      { commandTimeoutMs: 0 },
      'new RedisJobStore: commandTimeoutMs is the number 0: expected a positive number (ms).',
    ],
    [
      { connectTimeoutMs: Number.NaN },
      'new RedisJobStore: connectTimeoutMs is NaN: expected a positive number (ms).',
    ],
    [
      { waitForReplicas: { replicas: 0, timeoutMs: 500 } },
      'new RedisJobStore: waitForReplicas.replicas is the number 0: expected a positive integer.',
    ],
    [
      { url: 'redis://127.0.0.1:1', cluster: { rootNodes: [] } },
      'new RedisJobStore: give one of url, cluster or client, not cluster and url.',
    ],
    [
      { cluster: { rootNodes: [] } },
      'new RedisJobStore: cluster.rootNodes is an empty array: expected at least one seed node.',
    ],
  ])('%o → %s', (options, message) => {
    expect(() => new RedisJobStore(options as never)).toThrow(new GatewayConfigError(message));
  });
});
