import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, test } from 'node:test';
import { AHEAD, inOrder } from '../../../src/ingest/in-order.ts';

const items = Array.from({ length: 40 }, (_, i) => i);

/** A remote worker that answers after `ms(item)` milliseconds, counting what it holds. */
function slowRemote(ms: (item: number) => number) {
  const seen = { started: [] as number[], held: 0, mostHeld: 0 };
  const work = async (item: number) => {
    seen.started.push(item);
    seen.held += 1;
    seen.mostHeld = Math.max(seen.mostHeld, seen.held);
    await sleep(ms(item));
    seen.held -= 1;
    return `r${item}`;
  };
  return { seen, work };
}

describe('inOrder', () => {
  test('yields every result in the order of the items, whatever order they settle in', async () => {
    const remote = slowRemote((i) => (i * 7) % 5);
    const local = async (i: number) => `r${i}`;
    const out: string[] = [];
    for await (const r of inOrder(items, remote.work, local)) out.push(r);
    assert.deepEqual(
      out,
      items.map((i) => `r${i}`),
    );
  });

  test(`holds at most ${AHEAD + 1} items on the other thread, ${2 * AHEAD + 1} results in all`, async () => {
    const remote = slowRemote(() => 3);
    let taken = 0;
    const local = async (i: number) => {
      taken += 1;
      return `r${i}`;
    };
    let yielded = 0;
    let mostHeld = 0;
    for await (const r of inOrder(items, remote.work, local)) {
      assert.equal(r, `r${yielded}`);
      mostHeld = Math.max(mostHeld, remote.seen.started.length + taken - yielded);
      yielded += 1;
      await sleep(1);
    }
    assert.ok(remote.seen.mostHeld <= AHEAD + 1, `${remote.seen.mostHeld} on the other thread at once`);
    assert.ok(mostHeld <= 2 * AHEAD + 1, `${mostHeld} results held at once`);
  });

  test(
    'the calling thread takes items while the other thread is slow, and none while it keeps up',
    { timeout: 10_000 },
    async () => {
      // The other thread answers nothing until the calling thread has helped: only helping ends the run.
      let helped!: () => void;
      const help = new Promise<void>((resolve) => (helped = resolve));
      const remote: number[] = [];
      const taken: number[] = [];
      const slow = async (i: number) => {
        remote.push(i);
        await help;
        return `r${i}`;
      };
      const local = async (i: number) => {
        taken.push(i);
        helped();
        return `r${i}`;
      };
      const out: string[] = [];
      for await (const r of inOrder(items, slow, local)) out.push(r);
      assert.ok(taken.length > 0);
      assert.deepEqual(
        [...remote, ...taken].sort((a, b) => a - b),
        items,
        'each item is worked once',
      );
      assert.deepEqual(
        out,
        items.map((i) => `r${i}`),
      );

      // An answer that is back by the next turn of the event loop is never helped with.
      const none: number[] = [];
      const quick = async (i: number) => `r${i}`;
      for await (const r of inOrder(items, quick, async (i) => (none.push(i), `r${i}`)))
        assert.ok(r.startsWith('r'));
      assert.deepEqual(none, []);
    },
  );

  test("a rejection reaches the consumer at its item's turn; an early stop leaves the rest unasked", async () => {
    const failing = async (i: number) => {
      await sleep(1);
      if (i === 6) throw new Error('item 6 failed');
      return `r${i}`;
    };
    const out: string[] = [];
    await assert.rejects(async () => {
      for await (const r of inOrder(items, failing, failing)) out.push(r);
    }, /item 6 failed/);
    assert.deepEqual(out, ['r0', 'r1', 'r2', 'r3', 'r4', 'r5']);

    const remote = slowRemote(() => 1);
    for await (const r of inOrder(items, remote.work, remote.work)) if (r === 'r1') break;
    await sleep(20);
    assert.ok(remote.seen.started.length <= 2 * AHEAD + 2, `${remote.seen.started.length} items asked for`);
  });
});
