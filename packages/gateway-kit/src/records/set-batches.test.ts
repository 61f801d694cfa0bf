import { describe, expect, it } from 'vitest';
import { MemoryRecordStore } from './memory-record-store.ts';
import type { RecordStore, SetAddition, SetMember } from './record-store.ts';
import { addSetBySet, addToSets } from './set-batches.ts';

const entry = (set: string, member: string): SetAddition => ({ set, member, ttlMs: 60_000 });

/** A per-set step that records its calls and refuses (or fails) the runs it is told to. */
function steps(answers: Record<string, number | Error> = {}) {
  const runs: string[][] = [];
  const takenBack: SetMember[][] = [];
  return {
    runs,
    takenBack,
    addGroup: async (group: readonly SetAddition[]) => {
      runs.push(group.map((e) => `${e.set}:${e.member}`));
      const answer = answers[group[0]!.set] ?? -1;
      if (answer instanceof Error) throw answer;
      return answer;
    },
    takeBack: async (added: readonly SetMember[]) => {
      takenBack.push([...added]);
    },
  };
}

describe('addSetBySet', () => {
  it('adds run by run, in order, and takes back nothing when every run fits', async () => {
    const s = steps();
    const entries = [entry('a', '1'), entry('b', '1'), entry('b', '2')];
    expect(await addSetBySet(entries, s.addGroup, s.takeBack)).toBe(-1);
    expect(s.runs).toEqual([['a:1'], ['b:1', 'b:2']]);
    expect(s.takenBack).toEqual([]);
    expect(await addSetBySet([], s.addGroup, s.takeBack)).toBe(-1);
    expect(s.runs).toHaveLength(2);
  });

  it('on a refused run: takes back the runs before it, skips the later ones, answers the index in the call', async () => {
    const s = steps({ b: 1 });
    const entries = [entry('a', '1'), entry('b', '1'), entry('b', '2'), entry('c', '1')];
    expect(await addSetBySet(entries, s.addGroup, s.takeBack)).toBe(2);
    expect(s.runs).toEqual([['a:1'], ['b:1', 'b:2']]);
    expect(s.takenBack).toEqual([[entry('a', '1')]]);
  });

  it('a refused first run has nothing to take back', async () => {
    const s = steps({ a: 0 });
    expect(await addSetBySet([entry('a', '1'), entry('b', '1')], s.addGroup, s.takeBack)).toBe(0);
    expect(s.takenBack).toEqual([]);
  });

  it('on a failed run: takes back the runs before it and rejects with the failure', async () => {
    const down = new Error('store down');
    const s = steps({ b: down });
    const entries = [entry('a', '1'), entry('a', '2'), entry('b', '1')];
    await expect(addSetBySet(entries, s.addGroup, s.takeBack)).rejects.toBe(down);
    expect(s.takenBack).toEqual([[entry('a', '1'), entry('a', '2')]]);
  });

  it('interleaved sets are separate runs: the answer is the first entry in order that did not fit', async () => {
    const s = steps({ b: 0 });
    const entries = [entry('a', '1'), entry('b', '1'), entry('a', '2')];
    expect(await addSetBySet(entries, s.addGroup, s.takeBack)).toBe(1);
    expect(s.runs).toEqual([['a:1'], ['b:1']]);
  });
});

describe('addToSets without the store’s own addToSets', () => {
  const fallbackStore = () => {
    const store: RecordStore = new MemoryRecordStore();
    return Object.assign(store, { addToSets: undefined, removeFromSets: undefined });
  };

  it('takes back what a run added when one of its members fails, and rejects', async () => {
    const store = fallbackStore();
    const down = new Error('store down');
    const addToSet = store.addToSet.bind(store);
    store.addToSet = async (set, member, ttlMs, maxSize) => {
      if (member === 'bad') throw down;
      return addToSet(set, member, ttlMs, maxSize);
    };
    await expect(
      addToSets(store, [entry('a', '1'), entry('b', '1'), entry('b', 'bad')]),
    ).rejects.toBe(down);
    expect(await store.rangeOfSet('a', 10)).toEqual([]);
    expect(await store.rangeOfSet('b', 10)).toEqual([]);
  });
});
