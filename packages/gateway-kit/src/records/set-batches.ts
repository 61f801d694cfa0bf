import type { RecordStore, SetAddition, SetMember } from './record-store.ts';

/**
 * Adds every entry to its set, all or none: in one step with the store's `addToSets`, else set by
 * set with `addToSet` (the members of one set at once; see {@link addSetBySet}). Resolves `-1`
 * when every entry was added, else the index of the first entry that did not fit.
 *
 * The set-by-set fallback cannot tell a new member from one already there (`addToSet` answers
 * `true` for both): a refused call takes back every member it named before the refusal, so one
 * that was in its set before the call is removed, and a renewed expiry stays renewed. Name new
 * members only (as the gateway's quota claims do: one member per job) or implement `addToSets`.
 *
 * @example
 * const refused = await addToSets(records, [
 *   { set: 'quota:activeJobs:p1', member: 'job_1', ttlMs: 60_000, maxSize: 100 },
 *   { set: 'quota:heldBytes:p1', member: 'job_1#0', ttlMs: 60_000, maxSize: 64 },
 * ]);
 */
export async function addToSets(
  store: RecordStore,
  entries: readonly SetAddition[],
): Promise<number> {
  if (entries.length === 0) return -1;
  if (store.addToSets) return store.addToSets(entries);
  return addSetBySet(
    entries,
    (group) => addGroup(store, group),
    (added) => removeFromSets(store, added),
  );
}

/**
 * Adds every entry, all or none, for a store that cannot write several sets in one step (a store
 * without `addToSets`, or sets on different nodes of a cluster): one `addGroup` call per run of
 * consecutive entries of one set, in order, and when a run does not fit or a call fails, `takeBack`
 * of the runs added before it. `addGroup` adds its run all or none and resolves `-1`, or the index
 * in the run of the first entry that did not fit, having added none. Resolves as
 * {@link RecordStore.addToSets}: `-1`, or the index in `entries` of the first entry that did not fit.
 * The take-back removes every entry of the earlier runs, including a member that was in its set
 * before the call (see {@link addToSets}).
 *
 * @example
 * // A store adapter whose sets live on different shards: one atomic step per set.
 * addToSets(entries) {
 *   return addSetBySet(entries, (group) => this.#addToOneSet(group), (added) => this.removeFromSets(added));
 * }
 */
export async function addSetBySet(
  entries: readonly SetAddition[],
  addGroup: (group: readonly SetAddition[]) => Promise<number>,
  takeBack: (added: readonly SetMember[]) => Promise<void>,
): Promise<number> {
  let start = 0;
  try {
    // Run by run in order: a refused run costs the later ones nothing.
    while (start < entries.length) {
      let end = start + 1;
      while (end < entries.length && entries[end]!.set === entries[start]!.set) end++;
      const refused = await addGroup(entries.slice(start, end));
      if (refused !== -1) {
        if (start > 0) await takeBack(entries.slice(0, start));
        return start + refused;
      }
      start = end;
    }
    return -1;
  } catch (error) {
    if (start > 0) await takeBack(entries.slice(0, start)).catch(() => {});
    throw error;
  }
}

/**
 * One set's run with `addToSet`, its members at once; all or none: what it added is taken back
 * when one of them does not fit or a call fails.
 */
async function addGroup(store: RecordStore, group: readonly SetAddition[]): Promise<number> {
  const taken = await Promise.allSettled(
    group.map((entry) => store.addToSet(entry.set, entry.member, entry.ttlMs, entry.maxSize)),
  );
  const added = group.filter((_, i) => {
    const result = taken[i]!;
    return result.status === 'fulfilled' && result.value;
  });
  const failed = taken.find((result) => result.status === 'rejected');
  const refused = taken.findIndex((result) => result.status === 'fulfilled' && !result.value);
  if (failed || refused !== -1) {
    if (added.length > 0) {
      const undo = removeFromSets(store, added);
      if (failed) await undo.catch(() => {});
      else await undo;
    }
    if (failed) throw failed.reason;
  }
  return refused;
}

/**
 * Removes every entry from its set: in one step with the store's `removeFromSets`, else with one
 * `removeFromSet` per entry, all at once.
 *
 * @example
 * await removeFromSets(records, [{ set: 'quota:activeJobs:p1', member: 'job_1' }]);
 */
export async function removeFromSets(
  store: RecordStore,
  entries: readonly SetMember[],
): Promise<void> {
  if (entries.length === 0) return;
  if (store.removeFromSets) return store.removeFromSets(entries);
  await Promise.all(entries.map((entry) => store.removeFromSet(entry.set, entry.member)));
}
