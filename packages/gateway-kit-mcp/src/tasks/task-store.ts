import { InMemoryTaskStore } from '@modelcontextprotocol/sdk/experimental/tasks/stores/in-memory.js';
import type { Task } from '@modelcontextprotocol/sdk/types.js';

/**
 * The SDK's in-memory task store of one MCP session, which also aborts the work behind a task
 * when the client cancels it (`tasks/cancel`), and all of it when the session closes.
 */
export class SessionTaskStore extends InMemoryTaskStore {
  readonly #running = new Map<string, AbortController>();

  /** Tasks kept (running, or finished and within their TTL). */
  get size(): number {
    return this.getAllTasks().length;
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
    this.cleanup();
  }
}
