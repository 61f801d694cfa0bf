import * as v from 'valibot';
import { expect, it } from 'vitest';
import { defineAction } from '../actions/define-action.ts';
import { createGateway } from '../gateway/create-gateway.ts';
import { MemoryJobStore } from '../store/memory-job-store.ts';
import { createTestClient, invokeBody } from '../testing/index.ts';

it('a finished job keeps its callbacks and fingerprint, not the caller’s input and context', async () => {
  const jobStore = new MemoryJobStore();
  const gateway = createGateway({
    gateway: { id: 'acme', name: 'Acme', url: 'https://gateway.acme.example' },
    actions: [
      defineAction({
        id: 'export',
        executionMode: 'async',
        input: v.strictObject({ note: v.string() }),
        run: async ({ note }) => ({ outputText: `exported ${note.length} chars` }),
      }),
    ],
    auth: { tokens: ['t'] },
    jobStore,
    callbacks: false,
  });
  const client = createTestClient(gateway, { token: 't' });
  const note = 'n'.repeat(10_000);
  const accepted = await client.invoke(
    invokeBody('export', { note }, { idempotencyKey: 'k1', context: { transcript: note } }),
  );
  const { jobId } = (accepted.body as { job: { jobId: string } }).job;
  await gateway.idle();
  const stored = await jobStore.get(jobId);
  expect(stored?.status).toBe('completed');
  // heldUnits: what the job gives back of its principal's heldBytes, whoever reports its end.
  expect(Object.keys(stored?.payload ?? {}).sort()).toEqual([
    'callbacks',
    'fingerprint',
    'heldUnits',
  ]);
  expect(stored?.request).toBeUndefined();
  expect(JSON.stringify(stored)).not.toContain('nnnnnnnnnn');
  // The idempotent replay still recognises the same request.
  const replay = await client.invoke(invokeBody('export', { note }, { idempotencyKey: 'k1' }));
  expect((replay.body as { job: { jobId: string } }).job.jobId).toBe(jobId);
  await gateway.close();
});
