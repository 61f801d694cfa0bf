import { InMemoryTaskStore } from '@modelcontextprotocol/sdk/experimental/tasks/stores/in-memory.js';
import type { Task } from '@modelcontextprotocol/sdk/types.js';

/**
 * The SDK's in-memory task store of one MCP session, which also aborts the work behind a task
 * when the client cancels it (`tasks/cancel`), and all of it when the session closes.
 */
export class SessionTaskStore extends InMemoryTaskStore {
  readonly #running = new Map<string, AbortController>();
  /** Bytes of each kept result (JSON, UTF-8), by task id. */
  readonly #resultBytes = new Map<string, number>();

  /** Tasks kept (running, or finished and within their TTL). */
  get size(): number {
    return this.getAllTasks().length;
  }

  /**
   * Counts `bytes` of result for task `taskId` when the results kept by this session (of the
   * tasks the store still holds: it drops a task after its TTL) leave room for them within `max`;
   * `false`, counting nothing, otherwise.
   */
  reserveResult(taskId: string, bytes: number, max: number): boolean {
    const kept = new Set(this.getAllTasks().map((task) => task.taskId));
    let used = 0;
    for (const [id, size] of this.#resultBytes) {
      if (kept.has(id)) used += size;
      else this.#resultBytes.delete(id);
    }
    if (used + bytes > max) return false;
    this.#resultBytes.set(taskId, bytes);
    return true;
  }

  /** The signal that aborts when task `taskId` is cancelled or the session closes. */
  track(taskId: string): { readonly signal: AbortSignal; readonly done: () => void } {
    const controller = new AbortController();
    this.#running.set(taskId, controller);
    return { signal: controller.signal, done: () => this.#running.delete(taskId) };
  }

  override async updateTaskStatus(
    taskId: string,
    status: Task['status'],
    statusMessage?: string,
    sessionId?: string,
  ): Promise<void> {
    await super.updateTaskStatus(taskId, status, statusMessage, sessionId);
    if (status === 'cancelled') this.#running.get(taskId)?.abort('task cancelled');
  }

  /** Aborts every running task and drops every task (their TTL timers included). */
  close(): void {
    for (const controller of this.#running.values()) controller.abort('session closed');
    this.#running.clear();
    this.#resultBytes.clear();
    this.cleanup();
  }
}
