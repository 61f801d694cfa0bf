// The async gateway a team writes by hand on node:http + BullMQ, configured as BullMQ's docs
// recommend for throughput: ioredis (BullMQ's default client), one Queue, one Worker in the same
// process with concurrency 64, `maxRetriesPerRequest: null` on the worker's connection, BullMQ's
// own incrementing job ids,
// finished jobs removed by age and count (the same retention as the kit's store). It validates
// the request exactly as the kit's baselines do and answers the same accepted answer and job
// resource.
import { createServer } from 'node:http';
import { Queue, Worker } from 'bullmq';
import { Redis } from 'ioredis';
import * as v from 'valibot';
import {
  ACTION,
  authorized,
  exportReport,
  InvokeRequest,
  RETENTION,
  ReportInput,
} from './fixtures.mjs';

// Native ESM: BullMQ takes client instances (it cannot load ioredis itself here).
const url = process.env.REDIS_URL;
const prefix = process.env.REDIS_PREFIX ?? 'bench';
const queue = new Queue('jobs', { connection: new Redis(url), prefix });
const keep = { age: RETENTION.ms / 1000, count: RETENTION.count };
const worker = new Worker('jobs', async (job) => exportReport(job.data.input), {
  connection: new Redis(url, { maxRetriesPerRequest: null }),
  prefix,
  concurrency: 64,
  removeOnComplete: keep,
  removeOnFail: keep,
});
await Promise.all([queue.waitUntilReady(), worker.waitUntilReady()]);

const HEADERS = { 'content-type': 'application/json', 'cache-control': 'no-store' };
const send = (res, status, body) => {
  res.writeHead(status, { ...HEADERS, 'content-length': Buffer.byteLength(body) });
  res.end(body);
};
const envelope = (code, message) => JSON.stringify({ error: { code, message, retryable: false } });
const STATES = { waiting: 'queued', delayed: 'queued', prioritized: 'queued', active: 'running' };

async function invoke(req, res, bytes) {
  let body;
  try {
    body = JSON.parse(bytes.toString('utf8'));
  } catch {
    return send(res, 400, envelope('malformed_json', 'The request body is not valid JSON.'));
  }
  const request = v.safeParse(InvokeRequest, body);
  if (!request.success) return send(res, 422, envelope('invalid_request', 'Invalid request.'));
  if (request.output.action.id !== ACTION.id) {
    return send(res, 422, envelope('unknown_action', 'Unknown action.'));
  }
  const input = v.safeParse(ReportInput, request.output.action.input);
  if (!input.success) return send(res, 422, envelope('invalid_input', 'Invalid input.'));
  const job = await queue.add(ACTION.id, {
    input: input.output,
    invocationId: request.output.invocationId,
  });
  const base = `http://${req.headers.host}/v1/jobs/${job.id}`;
  send(
    res,
    200,
    JSON.stringify({
      status: 'accepted',
      job: { jobId: job.id, status: 'queued', statusUrl: base, cancelUrl: `${base}/cancel` },
    }),
  );
}

async function jobResource(res, id) {
  const job = await queue.getJob(id);
  if (!job) return send(res, 404, envelope('job_not_found', 'No such job.'));
  const state = await job.getState();
  const status = STATES[state] ?? (state === 'completed' ? 'completed' : 'failed');
  const finished = job.finishedOn ?? job.processedOn ?? job.timestamp;
  send(
    res,
    200,
    JSON.stringify({
      jobId: job.id,
      invocationId: job.data.invocationId,
      status,
      createdAt: new Date(job.timestamp).toISOString(),
      updatedAt: new Date(status === 'queued' ? job.timestamp : finished).toISOString(),
      actionId: ACTION.id,
      actionName: ACTION.name,
      ...(status === 'completed' ? job.returnvalue : {}),
    }),
  );
}

const server = createServer({ keepAliveTimeout: 65_000 }, (req, res) => {
  if (!authorized(req.headers.authorization)) {
    return send(res, 401, envelope('unauthorized', 'Missing or invalid bearer token.'));
  }
  const onError = () => send(res, 503, envelope('unavailable', 'Try again.'));
  if (req.method === 'GET' && req.url.startsWith('/v1/jobs/')) {
    return void jobResource(res, decodeURIComponent(req.url.slice(9))).catch(onError);
  }
  if (req.method !== 'POST' || req.url !== '/v1/invoke') {
    return send(res, 404, envelope('not_found', 'Not found.'));
  }
  const chunks = [];
  req.on('data', (chunk) => chunks.push(chunk));
  req.on('end', () => void invoke(req, res, Buffer.concat(chunks)).catch(onError));
});
server.listen(0, '127.0.0.1', () => process.send?.({ port: server.address().port }));
process.on('disconnect', () => process.exit(0));
