// The async gateway with the kit: createGateway + serve, jobs and records in Redis.
// Quotas raised only as far as the benchmark needs: 64 connections accept faster than one
// principal's default 100 active jobs finish, and one principal sends every request, so its
// finished jobs are kept up to the same count as BullMQ's removeOnComplete (not the default
// 1 000 per principal, which would expire the end-to-end run's first jobs before they are read).
import { createGateway, defineAction } from '@svc/gateway-kit';
import { serve } from '@svc/gateway-kit/node';
import { RedisJobStore, RedisRecordStore } from '../../dist/index.js';
import { ACTION, exportReport, KIT_JOB_STORE, ReportInput, TOKEN } from './fixtures.mjs';

const url = process.env.REDIS_URL;
const prefix = process.env.REDIS_PREFIX ?? 'bench:';
const jobStore = new RedisJobStore({ url, prefix, ...KIT_JOB_STORE });
const recordStore = new RedisRecordStore({ url, prefix });
await Promise.all([jobStore.ready(), recordStore.ready()]);

const gateway = createGateway({
  gateway: { id: 'bench', name: 'Async benchmark gateway', url: 'http://127.0.0.1' },
  actions: [
    defineAction({ ...ACTION, input: ReportInput, executionMode: 'async', run: exportReport }),
  ],
  auth: { tokens: [TOKEN] },
  version: '2025-01-01',
  jobStore,
  recordStore,
  quotas: { activeJobs: 100_000 },
});
const { server } = await serve(gateway, { port: 0, hostname: '127.0.0.1' });
process.send?.({ port: server.address().port });
process.on('disconnect', () => process.exit(0));
