/**
 * No personal data: adapters drop contact fields; this scrubs e-mail addresses from verbatim prose.
 *
 * An address is `[\w.+-]+@[\w-]+(?:\.[\w-]+)+`, found from each `@` outwards rather than by a regular
 * expression tried at every position (which backtracks over a long run of word characters with no `@`:
 * 8 s for a 100 KB field). Each character is read a bounded number of times, so a field of any size costs
 * time in proportion to its length.
 */
export const EMAIL_PLACEHOLDER = '[e-mail address removed]';

/** The domain after an `@`, tried at one position only (`y`): labels joined by dots, two at least. */
const DOMAIN = /[\w-]+(?:\.[\w-]+)+/y;

/** Whether a UTF-16 unit may be part of an address's local part: `[A-Za-z0-9_.+-]`. */
function isLocal(c: number): boolean {
  return (
    (c >= 0x61 && c <= 0x7a) || // a-z
    (c >= 0x41 && c <= 0x5a) || // A-Z
    (c >= 0x30 && c <= 0x39) || // 0-9
    c === 0x5f || // _
    c === 0x2e || // .
    c === 0x2b || // +
    c === 0x2d // -
  );
}

/** The text with every e-mail address replaced by a placeholder. */
export function maskEmails(text: string): string;
export function maskEmails(text: string | null): string | null;
export function maskEmails(text: string | null): string | null {
  if (text === null) return null;
  let at = text.indexOf('@');
  if (at === -1) return text;
  let out = '';
  // Everything before `copied` is in `out`; no address starts before it.
  let copied = 0;
  while (at !== -1) {
    let start = at;
    while (start > copied && isLocal(text.charCodeAt(start - 1))) start--;
    DOMAIN.lastIndex = at + 1;
    if (start < at && DOMAIN.test(text)) {
      out += text.slice(copied, start) + EMAIL_PLACEHOLDER;
      copied = DOMAIN.lastIndex;
      at = text.indexOf('@', copied);
    } else {
      at = text.indexOf('@', at + 1);
    }
  }
  return out + text.slice(copied);
}
