import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { resultTooLargeResult } from '../calls/tool-results.ts';
import type { SessionTaskStore } from './task-store.ts';

const utf8 = new TextEncoder();

/**
 * Bytes of results (JSON, UTF-8) one session keeps for its finished tasks: a result that does not
 * fit is kept as a `result_too_large` tool error naming the job, which keeps the result itself.
 */
const MAX_TASK_RESULT_BYTES_PER_SESSION = 2 * 1024 * 1024;

/** Shortest task TTL granted: a client's shorter, negative or fractional `ttl` is raised to it. */
const MIN_TASK_TTL_MS = 1_000;

/**
 * How long before its TTL a task stops following its job, at most, so that its result is stored
 * while the task exists: the SDK's task store drops a task `ttl` after its creation, finished or not.
 */
const TASK_RESULT_MARGIN_MS = 1_000;

/**
 * The result task `taskId` keeps: `result` when it fits in the session's budget of kept task
 * results, else a `result_too_large` tool error naming the job (a few hundred bytes: the 32 tasks
 * of a session bound them).
 */
export function keptTaskResult(
  store: SessionTaskStore,
  taskId: string,
  result: CallToolResult,
  basePath: string,
): CallToolResult {
  const bytes = utf8.encode(JSON.stringify(result)).byteLength;
  if (store.reserveResult(taskId, bytes, MAX_TASK_RESULT_BYTES_PER_SESSION)) return result;
  return resultTooLargeResult(
    result,
    bytes,
    MAX_TASK_RESULT_BYTES_PER_SESSION,
    (jobId) => `${basePath}/v1/jobs/${encodeURIComponent(jobId)}`,
  );
}

/**
 * The TTL granted to a task: the client's `ttl` as a whole number of milliseconds, from
 * {@link MIN_TASK_TTL_MS} to `taskTtlMs`; `taskTtlMs` when it names none (or no finite number).
 */
export function grantedTtl(requested: number | undefined, taskTtlMs: number): number {
  if (requested === undefined || !Number.isFinite(requested)) return taskTtlMs;
  return Math.min(Math.max(Math.floor(requested), MIN_TASK_TTL_MS), taskTtlMs);
}

/**
 * How long a task with TTL `ttl` follows its job or approval: until {@link TASK_RESULT_MARGIN_MS}
 * (at most half the TTL) before the TTL ends, so that its result is stored while the task exists.
 *
 * @example
 * followMs(60_000); // 59 000
 */
export function followMs(ttl: number): number {
  return ttl - Math.min(TASK_RESULT_MARGIN_MS, Math.floor(ttl / 2));
}
