/** Work shared between another thread and the calling one, its results taken in the items' order. */
import { setImmediate as turn } from 'node:timers/promises';

/**
 * How many items are under way on the other thread beyond the one awaited. With the calling thread's
 * help, at most 2 × this + 1 results are held at once: for an ingest, pages of prepared rows (~5 MB a
 * page of 1000 records).
 */
export const AHEAD = 4;

/**
 * Each item's result, in the items' order. `remote` works elsewhere, with up to {@link AHEAD} more items
 * under way; while the next result is not ready, the calling thread takes the following items itself
 * (`local`) rather than wait, so that neither thread idles when the consumer is quicker than the other
 * thread (an ingest that changes nothing). A consumer that stops early leaves the rest unasked; those
 * under way settle unobserved. A rejection reaches the consumer at its item's turn.
 */
export async function* inOrder<T, R>(
  items: readonly T[],
  remote: (item: T) => Promise<R>,
  local: (item: T) => Promise<R>,
): AsyncGenerator<R> {
  const underWay: { result: Promise<R>; settled: boolean }[] = [];
  let next = 0;
  const start = (work: (item: T) => Promise<R>) => {
    const entry = { result: work(items[next++]!), settled: false };
    // Observed when its turn comes, or never if the consumer stops first.
    entry.result.then(
      () => (entry.settled = true),
      () => (entry.settled = true),
    );
    underWay.push(entry);
  };
  while (next < items.length || underWay.length > 0) {
    while (next < items.length && underWay.length <= AHEAD) start(remote);
    // Results settle only once the other thread's messages are taken: one turn of the event loop.
    await turn();
    while (!underWay[0]!.settled && next < items.length && underWay.length <= 2 * AHEAD) {
      start(local);
      await turn();
    }
    yield await underWay.shift()!.result;
  }
}
