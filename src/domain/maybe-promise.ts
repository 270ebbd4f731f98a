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

/**
 * Runs `run` and hands its value to `onValue`, at once when it is at hand, once it resolves when it is a
 * promise; what `run` throws or rejects with goes to `onError` (a callback-style hook's `done`).
 */
export function settle<T>(
  run: () => MaybePromise<T>,
  onValue: (value: T) => void,
  onError: (error: Error) => void,
): void {
  let value: MaybePromise<T>;
  try {
    value = run();
  } catch (error) {
    onError(error as Error);
    return;
  }
  if (value instanceof Promise) value.then(onValue, onError);
  else onValue(value);
}
