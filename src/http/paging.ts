/**
 * Keyset walks over the list endpoints: cursors decoded to typed positions and encoded, bound to endpoint and
 * filters, signed with the store's cursor secret; range-checked so no cursor can make a query fail.
 */
import { decodeCursor, encodeCursor, filterFingerprint, type CursorPosition } from '../domain/cursor.ts';
import type { RecallPosition } from '../store/recall-pages.ts';
import { ProblemError } from './problems.ts';

/** The largest value of an `integer` column on PostgreSQL (int4): revisions are at most this. */
export const MAX_INTEGER_POSITION = 2 ** 31 - 1;
/** The longest text a position may carry: recall ids are at most 512 characters (the path's bound). */
const MAX_TEXT_POSITION = 512;

function invalid(): ProblemError {
  return new ProblemError(
    'invalid-cursor',
    'Invalid cursor: it does not decode to a position of this list.',
    {
      parameter: 'cursor',
    },
  );
}

/** Text a column can hold: bounded, and no NUL (PostgreSQL text refuses it). */
function isText(value: unknown): value is string {
  return typeof value === 'string' && value.length <= MAX_TEXT_POSITION && !value.includes('\0');
}

export class Walk {
  private print: string | undefined;

  constructor(
    private readonly secret: Uint8Array,
    private readonly endpoint: string,
    private readonly filters: Record<string, unknown>,
  ) {}

  /** The filters' fingerprint, computed only when a cursor is read or written. */
  private get fingerprint(): string {
    return (this.print ??= filterFingerprint(this.filters));
  }

  private decode(cursor: string | undefined): CursorPosition | undefined {
    return cursor === undefined
      ? undefined
      : decodeCursor(this.secret, cursor, this.endpoint, this.fingerprint);
  }

  /** A position in the newest-first recall order. */
  recallPosition(cursor: string | undefined): RecallPosition | undefined {
    const p = this.decode(cursor);
    if (p === undefined) return undefined;
    const [sortDate, id] = p;
    if (p.length !== 2 || !isText(sortDate) || !isText(id)) throw invalid();
    return { sortDate, id };
  }

  /** A position that is one whole number within an integer column (a revision). */
  numberPosition(cursor: string | undefined): number | undefined {
    const p = this.decode(cursor);
    if (p === undefined) return undefined;
    const [n] = p;
    if (p.length !== 1 || !Number.isInteger(n) || (n as number) < 0 || (n as number) > MAX_INTEGER_POSITION)
      throw invalid();
    return n as number;
  }

  /** A position that is one row's own id (a receipt's check_id): no counter shared across keys. */
  idPosition(cursor: string | undefined): string | undefined {
    const p = this.decode(cursor);
    if (p === undefined) return undefined;
    const [id] = p;
    if (p.length !== 1 || !isText(id)) throw invalid();
    return id;
  }

  /** `next_cursor`: the position after the last row, or null when the walk is complete. */
  next(more: boolean, position: CursorPosition | undefined): string | null {
    return more && position !== undefined
      ? encodeCursor(this.secret, this.endpoint, this.fingerprint, position)
      : null;
  }
}
