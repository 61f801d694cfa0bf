import { isRecordStoreFullError } from '@svc/gateway-kit/store';
import type { ConformanceTestApi } from '@svc/gateway-kit/testing';
import { DurableRecordStore } from '../../src/durable-record-store.ts';
import type { DurableStorage } from '../../src/durable-storage.ts';

async function rejectsFull(write: () => Promise<unknown>, what: string): Promise<void> {
  try {
    await write();
  } catch (error) {
    if (isRecordStoreFullError(error)) return;
    throw error;
  }
  throw new Error(`${what}: expected RecordStoreFullError`);
}

/** DurableRecordStore's bounds (not part of the kit's suite): records, bytes and set members. */
export function recordBoundsCases(
  test: ConformanceTestApi,
  storage: DurableStorage,
  clock: { now: () => number; advance: (ms: number) => void },
  prefix: () => string,
): void {
  test.describe('DurableRecordStore bounds (workerd)', () => {
    test.it('refuses a record beyond maxRecords; a delete or an expiry makes room', async () => {
      const store = new DurableRecordStore(storage, {
        prefix: prefix(),
        now: clock.now,
        maxRecords: 3,
      });
      await store.create('a', 1, 60_000);
      await store.create('b', 2, 60_000);
      const c = await store.create('c', 3, 1_000);
      await rejectsFull(() => store.create('d', 4, 60_000), 'a fourth record');
      // A replace of an existing record needs no new room.
      if (!(await store.replace('a', 1, 10, 60_000))) throw new Error('replace refused');
      await store.delete('b', 1);
      await store.create('d', 4, 60_000);
      clock.advance(1_000);
      if (c.record.version !== 1) throw new Error('unexpected version');
      await store.create('e', 5, 60_000); // c expired: its room is taken back
      await rejectsFull(() => store.create('f', 6, 60_000), 'beyond maxRecords again');
    });

    test.it(
      'refuses values beyond maxBytes, counting replaced values by their new size',
      async () => {
        const store = new DurableRecordStore(storage, {
          prefix: prefix(),
          now: clock.now,
          maxBytes: 100,
        });
        await store.create('k1', 'x'.repeat(40), 60_000);
        await rejectsFull(
          () => store.create('k2', 'y'.repeat(60), 60_000),
          'a record over the bytes',
        );
        await rejectsFull(() => store.replace('k1', 1, 'z'.repeat(120), 60_000), 'a grown replace');
        if (!(await store.replace('k1', 1, 'z', 60_000)))
          throw new Error('a smaller replace refused');
        await store.create('k2', 'y'.repeat(60), 60_000);
      },
    );

    test.it('refuses a new set member beyond maxMembers, over all sets', async () => {
      const store = new DurableRecordStore(storage, {
        prefix: prefix(),
        now: clock.now,
        maxMembers: 2,
      });
      await store.addToSet('s1', 'm1', 60_000);
      await store.addToSet('s2', 'm1', 1_000);
      await rejectsFull(() => store.addToSet('s3', 'm1', 60_000), 'a third member');
      if (!(await store.addToSet('s1', 'm1', 60_000)))
        throw new Error('an existing member refused');
      await store.removeFromSet('s1', 'm1');
      await store.addToSet('s3', 'm1', 60_000);
      clock.advance(1_000);
      await store.addToSet('s4', 'm1', 60_000); // s2's member expired
    });
  });
}
