/**
 * Values that are often at hand and sometimes must be awaited (state kept in memory, read again when it moved):
 * a request path that has them at hand continues without a promise.
 */

/** A value, or a promise of it. */
export type MaybePromise<T> = T | Promise<T>;

/** `next` of `value`: at once when `value` is at hand, once it resolves when it is a promise. */
export function andThen<T, R>(value: MaybePromise<T>, next: (value: T) => MaybePromise<R>): MaybePromise<R> {
  return value instanceof Promise ? value.then(next) : next(value);
}
