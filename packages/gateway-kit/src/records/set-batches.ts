import type { RecordStore, SetAddition, SetMember } from './record-store.ts';

/**
 * Adds every entry to its set, all or none: in one step with the store's `addToSets`, else set by
 * set with `addToSet` (the members of one set at once), taking back what this call added when an
 * entry does not fit or a call fails. Resolves `-1` when every entry was added, else the index of
 * the first entry that did not fit.
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
  const added: SetAddition[] = [];
  try {
    // Set by set in order: a refused set costs the later ones nothing.
    for (let start = 0; start < entries.length; ) {
      let end = start + 1;
      while (end < entries.length && entries[end]!.set === entries[start]!.set) end++;
      const group = entries.slice(start, end);
      const taken = await Promise.allSettled(
        group.map((entry) => store.addToSet(entry.set, entry.member, entry.ttlMs, entry.maxSize)),
      );
      let refused = -1;
      for (const [i, result] of taken.entries()) {
        if (result.status === 'fulfilled' && result.value) added.push(group[i]!);
        else if (refused === -1 && result.status === 'fulfilled') refused = start + i;
      }
      const failed = taken.find((result) => result.status === 'rejected');
      if (failed) throw failed.reason;
      if (refused !== -1) {
        await removeFromSets(store, added);
        return refused;
      }
      start = end;
    }
    return -1;
  } catch (error) {
    await removeFromSets(store, added).catch(() => {});
    throw error;
  }
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
