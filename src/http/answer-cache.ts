/**
 * Answers of the corpus-backed GET routes, kept for the corpus version they were made at.
 *
 * These routes already promise that the same URL at the same corpus version gives the same
 * body: their weak ETag is made from nothing else, and a client holding it is answered 304. This
 * cache keeps that promise on the server side too: a repeated request is answered with the bytes
 * serialised the first time, after the same gates (key, burst limit, strict parameters, quota)
 * and with the same usage, instead of running the query again. A new corpus version empties it.
 *
 * Answers are kept as their UTF-8 bytes, outside the JavaScript heap (the collector never walks
 * them, and the budget is the memory they take). Bounded by those bytes (least recently used
 * answers go first); an answer larger than a sixteenth of the budget is never kept.
 */
export class AnswerCache {
  private version: number | undefined;
  private answers = new Map<string, Buffer>();
  private held = 0;

  /** @param budget bytes held at most (0 turns the cache off) */
  constructor(private readonly budget: number) {}

  /** The answer to `url` made at `version`, if kept. */
  get(version: number, url: string): Buffer | undefined {
    if (version !== this.version) return undefined;
    const answer = this.answers.get(url);
    if (answer !== undefined) {
      // most recently used last
      this.answers.delete(url);
      this.answers.set(url, answer);
    }
    return answer;
  }

  /**
   * Keeps the answer to `url` made at `version`. An answer made at an older version than the
   * one held is dropped; a newer version replaces everything held.
   */
  set(version: number, url: string, text: string): void {
    if (text.length > this.budget / 16) return; // at least as many bytes as characters
    const answer = Buffer.from(text, 'utf8');
    if (answer.length > this.budget / 16) return;
    if (this.version === undefined || version > this.version) {
      this.version = version;
      this.answers = new Map();
      this.held = 0;
    } else if (version < this.version) return;
    const previous = this.answers.get(url);
    if (previous !== undefined) {
      this.answers.delete(url);
      this.held -= previous.length;
    }
    for (const [oldest, dropped] of this.answers) {
      if (this.held + answer.length <= this.budget) break;
      this.answers.delete(oldest);
      this.held -= dropped.length;
    }
    this.answers.set(url, answer);
    this.held += answer.length;
  }

  /** Answers and bytes held now. */
  size(): { answers: number; bytes: number } {
    return { answers: this.answers.size, bytes: this.held };
  }
}
