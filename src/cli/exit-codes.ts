/**
 * Exit statuses of `recalls check`, `verify` and `diff`, and the error that carries one. `usage` is
 * every command's status for arguments or settings it cannot take.
 */

/** What the exit status of a catalogue command means (documented in each command's help). */
export const EXIT = {
  /** check: complete; verify: everything verified; diff: no difference. */
  ok: 0,
  /** check: stopped by a service error (partial, resumable); verify: a difference; diff: differences. */
  failed: 1,
  /**
   * Bad arguments or settings (every command), an unreadable catalogue or run folder, or an unreachable
   * service: nothing was done.
   */
  usage: 2,
  /** check: the key's monthly quota is exhausted (402); the run is partial and resumable. */
  quotaExceeded: 3,
} as const;

/** A failure that ends a command with `message` on stderr and `exitCode`. */
export class CommandFailure extends Error {
  constructor(
    message: string,
    readonly exitCode: number = EXIT.usage,
  ) {
    super(message);
  }
}
