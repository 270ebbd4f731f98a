/** Reading an answer's body as a stream under a size cap, and freeing an unwanted one. */
import { UpstreamError } from '../errors.ts';
import { AttemptError, describe, fatal } from './failures.ts';

/** What {@link readBody} reports to and asks of the attempt around it. */
export interface BodyHooks {
  maxBytes: number;
  /** Called after each chunk (resets the idle timer). */
  onChunk: () => void;
  /** Called when the body passes the cap, before giving up (aborts the request). */
  onTooLarge: () => void;
  /** Whether the attempt's own timer aborted the read. */
  timedOut: () => boolean;
  timeoutError: (cause: unknown) => AttemptError;
}

/** Reads the body as a stream, aborting as soon as it passes the cap. Throws AttemptError only. */
export async function readBody(res: Response, url: string, hooks: BodyHooks): Promise<Buffer> {
  if (res.body === null) return Buffer.alloc(0);
  const reader = res.body.getReader();
  const chunks: Buffer[] = [];
  let total = 0;
  for (;;) {
    let chunk: Awaited<ReturnType<typeof reader.read>>;
    try {
      chunk = await reader.read();
    } catch (err) {
      if (hooks.timedOut()) throw hooks.timeoutError(err);
      throw new AttemptError(
        new UpstreamError(
          'truncated',
          `${url}: body interrupted after ${total} bytes (${describe(err)})`,
          { url },
          { cause: err },
        ),
        true,
      );
    }
    if (chunk.done) break;
    total += chunk.value.byteLength;
    if (total > hooks.maxBytes) {
      hooks.onTooLarge();
      reader.cancel().catch(() => undefined);
      throw fatal('too_large', `${url}: body passed the ${hooks.maxBytes}-byte cap`, { url });
    }
    chunks.push(Buffer.from(chunk.value.buffer, chunk.value.byteOffset, chunk.value.byteLength));
    hooks.onChunk();
  }
  return Buffer.concat(chunks, total);
}

/** Frees the connection of a response whose body we do not want. */
export async function discard(res: Response): Promise<void> {
  try {
    await res.body?.cancel();
  } catch {
    // the connection is going away anyway
  }
}
