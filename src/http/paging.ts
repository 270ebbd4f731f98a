/**
 * Keyset walks over the list endpoints: one object per request that decodes the incoming
 * cursor into a typed position and encodes the next one, bound to its endpoint and filters.
 */
import { decodeCursor, encodeCursor, filterFingerprint, type CursorPosition } from '../domain/cursor.ts';
import type { RecallPosition } from '../store/recalls-store.ts';
import { ProblemError } from './problems.ts';

function invalid(): ProblemError {
  return new ProblemError(
    'invalid-cursor',
    'Invalid cursor: it does not decode to a position of this list.',
    {
      parameter: 'cursor',
    },
  );
}

export class Walk {
  private print: string | undefined;

  constructor(
    private readonly endpoint: string,
    private readonly filters: Record<string, unknown>,
  ) {}

  /** The filters' fingerprint, computed only when a cursor is read or written. */
  private get fingerprint(): string {
    return (this.print ??= filterFingerprint(this.filters));
  }

  private decode(cursor: string | undefined): CursorPosition | undefined {
    return cursor === undefined ? undefined : decodeCursor(cursor, this.endpoint, this.fingerprint);
  }

  /** A position in the newest-first recall order. */
  recallPosition(cursor: string | undefined): RecallPosition | undefined {
    const p = this.decode(cursor);
    if (p === undefined) return undefined;
    const [sortDate, id] = p;
    if (p.length !== 2 || typeof sortDate !== 'string' || typeof id !== 'string') throw invalid();
    return { sortDate, id };
  }

  /** A position that is one whole number (a revision or a receipt sequence). */
  numberPosition(cursor: string | undefined): number | undefined {
    const p = this.decode(cursor);
    if (p === undefined) return undefined;
    const [n] = p;
    if (p.length !== 1 || typeof n !== 'number' || !Number.isSafeInteger(n)) throw invalid();
    return n;
  }

  /** `next_cursor`: the position after the last row, or null when the walk is complete. */
  next(more: boolean, position: CursorPosition | undefined): string | null {
    return more && position !== undefined ? encodeCursor(this.endpoint, this.fingerprint, position) : null;
  }
}
