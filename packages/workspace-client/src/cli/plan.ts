import type { Kind, LocalItem, LocalState } from './load.ts';

/** What applying will do to one object. */
export type Action = 'create' | 'update' | 'unchanged' | 'delete';

/** One line of a plan. */
export interface Change {
  readonly action: Action;
  readonly kind: Kind;
  readonly key: string;
  /** The file declaring it (absent for a delete). */
  readonly file?: string | undefined;
  /** For an update: the top-level fields whose value differs. */
  readonly fields?: readonly string[] | undefined;
  /** What is upserted (create and update only). */
  readonly input?: unknown;
}

/** What the workspace holds, as listed by the API. */
export interface RemoteState {
  readonly skills: readonly Record<string, unknown>[];
  readonly agents: readonly Record<string, unknown>[];
  readonly debriefs: readonly Record<string, unknown>[];
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  value !== null && typeof value === 'object' && !Array.isArray(value);

/**
 * True when the stored value holds everything the file sets: objects are compared key by key
 * (key order and keys only the service added do not matter), arrays element by element with
 * the same length, other values strictly.
 */
export function covers(local: unknown, stored: unknown): boolean {
  if (Array.isArray(local)) {
    return (
      Array.isArray(stored) &&
      stored.length === local.length &&
      local.every((item, index) => covers(item, stored[index]))
    );
  }
  if (isObject(local)) {
    return (
      isObject(stored) &&
      Object.entries(local).every(
        ([key, value]) => value === undefined || covers(value, stored[key]),
      )
    );
  }
  return Object.is(local, stored);
}

const remoteKey = (kind: Kind, row: Record<string, unknown>): unknown =>
  kind === 'debriefs' ? row.externalId : row.slug;

/**
 * Compares a folder with the workspace. An object is `unchanged` when the stored object
 * `covers` every field the file sets (fields the file leaves out, at any depth, are not
 * compared: the service may fill them in). Skills and agents stored but not declared are `delete` only with `prune`;
 * debriefs are never deleted (the API has no debrief delete).
 */
export function plan(local: LocalState, remote: RemoteState, prune: boolean): Change[] {
  const changes: Change[] = [];
  for (const kind of ['skills', 'agents', 'debriefs'] as const) {
    const stored = new Map<unknown, Record<string, unknown>>();
    for (const row of remote[kind]) stored.set(remoteKey(kind, row), row);
    for (const item of local[kind] as LocalItem[]) {
      const row = stored.get(item.key);
      stored.delete(item.key);
      const base = { kind, key: item.key, file: item.file };
      if (row === undefined) {
        changes.push({ ...base, action: 'create', input: item.input });
        continue;
      }
      const fields = Object.entries(item.input as Record<string, unknown>)
        .filter(([name, value]) => value !== undefined && !covers(value, row[name]))
        .map(([name]) => name);
      changes.push(
        fields.length === 0
          ? { ...base, action: 'unchanged' }
          : { ...base, action: 'update', fields, input: item.input },
      );
    }
    if (prune && kind !== 'debriefs') {
      for (const key of stored.keys()) {
        if (typeof key === 'string') changes.push({ action: 'delete', kind, key });
      }
    }
  }
  return changes;
}

/** Counts per action. */
export function summarize(changes: readonly Change[]): Record<Action, number> {
  const counts: Record<Action, number> = { create: 0, update: 0, unchanged: 0, delete: 0 };
  for (const change of changes) counts[change.action] += 1;
  return counts;
}
