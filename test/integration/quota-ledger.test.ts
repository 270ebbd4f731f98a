/**
 * Quota leases on the test engine's real database, several ledgers (nodes) at once: admissions come
 * from leased blocks and never pass the limit together, a unit is used only once its answer was sent
 * (or its receipt recorded), and unused units go back when a key idles, its month ends, or the node
 * stops — after which the stored usage is exact. The HTTP suites drive the same ledger through the app.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { LEASE_SHARE, leaseBlock } from '../../src/domain/quota-lease.ts';
import { QuotaLedger, REPORT_MS, type LeaseHold } from '../../src/quota/ledger.ts';
import { openStore, type Store } from '../../src/store/database.ts';
import { createTestDatabase, type TestDatabase } from '../support/database.ts';
import { until } from '../support/until.ts';

const MAY = '2026-05';

describe('quota leases', () => {
  let dir: string;
  let db: TestDatabase;
  let store: Store;
  let clock = new Date('2026-05-20T12:00:00Z');
  const ledgers: QuotaLedger[] = [];

  /** A node's ledger with blocks of at most `maxBlock`, on the shared clock. */
  const ledger = (maxBlock: number, idleReturnMs = 600_000) => {
    const l = new QuotaLedger(store, {
      rule: { maxBlock, share: LEASE_SHARE },
      idleReturnMs,
      now: () => clock,
      onError: (error) => {
        throw error;
      },
    });
    ledgers.push(l);
    return l;
  };
  const keyId = async (name: string) => (await store.keys.create('free', name, new Date())).id;

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'recalls-ledger-'));
    db = await createTestDatabase(dir);
    store = await openStore(db.database);
  });
  after(async () => {
    await Promise.all(ledgers.map((l) => l.close()));
    await store.close();
    await db.drop();
    rmSync(dir, { recursive: true, force: true });
  });

  test('three nodes admitting at once never pass the limit together, and are exact once stopped', async () => {
    const id = await keyId('three');
    const nodes = [ledger(8), ledger(8), ledger(8)];
    const holds = await Promise.all(Array.from({ length: 180 }, (_, i) => nodes[i % 3]!.admit(id, 100, MAY)));
    const admitted = holds.filter((h): h is LeaseHold => h !== undefined);
    assert.equal(admitted.length, 100, 'exactly the limit');
    const standing = await store.usage.standing(id, MAY);
    assert.equal(standing.used.requests + standing.leasedRequests, 100);
    // Half are answered 2xx, half are not: only the first half is used.
    admitted.forEach((h, i) => h.closed(i % 2 === 0));
    await Promise.all(nodes.map((n) => n.close()));
    assert.deepEqual(await store.usage.standing(id, MAY), {
      used: { requests: 50, identifiers: 0 },
      leasedRequests: 0,
    });
    // What was freed can be taken again, by any node, and no more.
    const next = ledger(1000);
    const more = await Promise.all(Array.from({ length: 60 }, () => next.admit(id, 100, MAY)));
    assert.equal(more.filter((h) => h !== undefined).length, 50);
  });

  test('a unit is used once a 2xx is sent or its receipt recorded; freed when waived or abandoned', async () => {
    const id = await keyId('holds');
    const node = ledger(8);
    const take = async () => (await node.admit(id, 5, MAY))!;
    const answered = await take();
    answered.closed(true);
    const replay = await take();
    replay.waive();
    replay.closed(true);
    const failed = await take();
    failed.closed(false);
    assert.equal(failed.abandoned, true, 'closed without an answer');
    const recorded = await take();
    await recorded.recording(async () => {
      recorded.closed(false); // the client goes while the receipt is being written
      recorded.keep();
    });
    await node.close();
    assert.deepEqual(await store.usage.standing(id, MAY), {
      used: { requests: 2, identifiers: 0 },
      leasedRequests: 0,
    });
  });

  test('a conditional answer looks without taking', async () => {
    const id = await keyId('look');
    const node = ledger(8);
    assert.equal(await node.wouldAdmit(id, 1, MAY), true);
    assert.equal(await node.wouldAdmit(id, 1, MAY), true, 'looking twice takes nothing');
    const hold = (await node.admit(id, 1, MAY))!;
    assert.equal(await node.wouldAdmit(id, 1, MAY), false, 'the one unit is held');
    assert.equal(await node.admit(id, 1, MAY), undefined);
    hold.closed(false);
    assert.equal(await node.wouldAdmit(id, 1, MAY), true, 'freed again');
  });

  test('unused units go back when a key has been idle, so another node can use them', async () => {
    const id = await keyId('idle');
    const holder = ledger(8, 100);
    const block = leaseBlock(200, { maxBlock: 8, share: LEASE_SHARE });
    assert.equal(block, 3, 'the holder leases ⌊200 / 64⌋ = 3');
    const hold = (await holder.admit(id, 200, MAY))!;
    hold.closed(true);
    const other = ledger(8);
    const taken = (await Promise.all(Array.from({ length: 200 }, () => other.admit(id, 200, MAY)))).filter(
      Boolean,
    ).length;
    assert.equal(taken, 200 - block, 'the holder still holds the 2 it did not use');
    clock = new Date(clock.getTime() + 150);
    // left leased: the other node's holds, still unanswered
    await until(
      async () => {
        const standing = await store.usage.standing(id, MAY);
        return standing.used.requests === 1 && standing.leasedRequests === taken;
      },
      () => 'the holder to report its answer and give back its unused units',
    );
    const again = await Promise.all([other.admit(id, 200, MAY), other.admit(id, 200, MAY)]);
    assert.ok(
      again.every((h) => h !== undefined),
      'the units given back are admitted',
    );
    assert.equal(await other.admit(id, 200, MAY), undefined, 'and no more');
  });

  test('a month that has ended gives back its unused units at once', async () => {
    const id = await keyId('rollover');
    clock = new Date('2026-05-31T23:59:59Z');
    const node = ledger(8);
    (await node.admit(id, 1000, MAY))!.closed(true);
    assert.equal((await store.usage.standing(id, MAY)).leasedRequests, 8);
    clock = new Date('2026-06-01T00:00:00Z');
    (await node.admit(id, 1000, '2026-06'))!.closed(true);
    await until(
      async () => {
        const may = await store.usage.standing(id, MAY);
        return may.leasedRequests === 0 && may.used.requests === 1;
      },
      () => 'May to be settled',
    );
  });

  test('one report in flight per node: while the database keeps one waiting, answers start no other', async () => {
    const id = await keyId('one-sweep');
    const node = ledger(1000);
    const settle = store.usage.settleRequests.bind(store.usage);
    let inFlight = 0;
    let most = 0;
    let calls = 0;
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    // The real statement, after a wait standing for a row or file locked elsewhere.
    store.usage.settleRequests = async (...args) => {
      calls++;
      most = Math.max(most, ++inFlight);
      try {
        await held;
        return await settle(...args);
      } finally {
        inFlight--;
      }
    };
    try {
      (await node.admit(id, 1000, MAY))!.closed(true);
      await until(
        () => calls === 1,
        () => 'the first report to start',
      );
      // Answers go on for ten report periods while that report waits.
      for (let n = 0; n < 10; n++) {
        (await node.admit(id, 1000, MAY))!.closed(true);
        await new Promise((resolve) => setTimeout(resolve, REPORT_MS));
      }
      assert.equal(calls, 1, 'no report starts while one waits');
      release();
      await node.close();
      assert.equal(most, 1);
      assert.deepEqual(await store.usage.standing(id, MAY), {
        used: { requests: 11, identifiers: 0 },
        leasedRequests: 0,
      });
    } finally {
      release();
      store.usage.settleRequests = settle;
    }
  });
});
