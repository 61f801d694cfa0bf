import type { NewJob } from '@svc/gateway-kit/store';

/**
 * A job as the gateway creates one, for the store tests: owner `owner-1` unless given.
 *
 * @example
 * await store.create(newJob('j1', 'running'));
 */
export const newJob = (
  jobId: string,
  status: 'queued' | 'running' = 'queued',
  ownerId = 'owner-1',
): NewJob => ({
  jobId,
  ownerId,
  invocationId: `inv-${jobId}`,
  actionId: 'export',
  actionName: 'Export',
  status,
  createdAt: new Date().toISOString(),
});
