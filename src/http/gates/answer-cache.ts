/**
 * Stage 5, the answer cache: answers of the corpus-backed GET routes per corpus version (same URL and version, same body: the ETag
 * promises it), replayed once the gates admit the request; a new version empties the cache. Held as UTF-8
 * bytes off the heap, LRU within the byte budget, which counts each answer's bookkeeping as well as its
 * bytes; an answer over a sixteenth of it is never kept.
 */
import fp from 'fastify-plugin';
import {
  VersionedCache,
  type CacheFigures,
  type CacheRegistry,
  type CountedCache,
} from '../../node/caches.ts';
import { isRead, routeConfig } from '../context.ts';
import { JSON_CONTENT_TYPE } from '../rendered-answer.ts';

/** `bytes` in memory of their own, so that what the cache counts is what it holds. */
function ownCopy(bytes: Buffer): Buffer {
  const own = Buffer.allocUnsafeSlow(bytes.length);
  bytes.copy(own);
  return own;
}

/**
 * What the budget counts for each answer kept besides its bytes and its URL: the Buffer, its backing
 * store and the LRU's entry. Measured: ~0.8 KB of resident memory per kept answer besides its bytes
 * (100,000 answers of 86 bytes took 87 MB), so a budget filled with small answers (a lookup that found
 * nothing is 86 bytes) held ten times what it counted.
 */
export const ANSWER_ENTRY_COST = 1024;

/** What an answer of `bytes` to `url` counts against the budget. */
export function answerCost(url: string, bytes: number): number {
  return bytes + url.length + ANSWER_ENTRY_COST;
}

export class AnswerCache implements CountedCache {
  readonly name = 'answers';
  private readonly answers: VersionedCache<string, Buffer> | undefined;

  /** @param budget bytes held at most (0 turns the cache off) */
  constructor(private readonly budget: number) {
    this.answers =
      budget > 0
        ? new VersionedCache<string, Buffer>(this.name, {
            maxBytes: budget,
            bytesOf: (answer, url) => answerCost(url, answer.length),
          })
        : undefined;
  }

  /** The answer to `url` made at `version`, if kept. */
  get(version: number, url: string): Buffer | undefined {
    return this.answers?.get(version, url);
  }

  /** Keeps `url`'s answer at `version`: older than the version held is dropped, newer replaces all. */
  set(version: number, url: string, body: string | Buffer): void {
    const most = this.budget / 16;
    // Before encoding, on the characters: bytes ≥ characters.
    if (this.answers === undefined || answerCost(url, body.length) > most) return;
    let answer = typeof body === 'string' ? Buffer.from(body, 'utf8') : body;
    if (answerCost(url, answer.length) > most) return;
    // A small buffer is a slice of Node's shared 8 KB pool: kept as it is, it would hold the whole slab.
    if (answer.byteLength !== answer.buffer.byteLength) answer = ownCopy(answer);
    this.answers.set(version, url, answer);
  }

  figures(): CacheFigures {
    return (
      this.answers?.figures() ?? {
        name: this.name,
        entries: 0,
        maxEntries: undefined,
        bytes: 0,
        maxBytes: 0,
        hits: 0,
        misses: 0,
      }
    );
  }
}

/** Serves a corpus-backed GET from the cache once the gates have admitted it, and keeps each answer. */
export const answerCache = fp<{ budget: number; caches: CacheRegistry }>(
  async (app, { budget, caches }) => {
    const answers = caches.add(new AnswerCache(budget));
    app.decorateRequest('cachedAnswer', false);
    // A callback hook: nothing is awaited, so no promise per request.
    app.addHook('preHandler', (request, reply, done) => {
      const version = request.corpusVersion;
      if (!isRead(request) || routeConfig(request).etag !== 'corpus' || version === undefined) return done();
      const answer = answers.get(version, request.url);
      if (answer === undefined) return done();
      request.cachedAnswer = true;
      reply.type(JSON_CONTENT_TYPE).send(answer); // answered: the chain ends here, done is not called
    });
    app.addHook('onSend', (request, reply, payload, done) => {
      if (
        reply.statusCode === 200 &&
        !request.cachedAnswer &&
        request.corpusVersion !== undefined &&
        routeConfig(request).etag === 'corpus' &&
        isRead(request) &&
        (typeof payload === 'string' || Buffer.isBuffer(payload))
      )
        answers.set(request.corpusVersion, request.url, payload);
      done(null, payload);
    });
  },
  { name: 'answer-cache' },
);
