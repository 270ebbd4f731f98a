/**
 * No personal data in the corpus. Contact fields are dropped by each adapter; this covers the
 * agency prose that is kept verbatim but sometimes names people's e-mail addresses.
 */
const EMAIL = /[\w.+-]+@[\w-]+(?:\.[\w-]+)+/g;

export const EMAIL_PLACEHOLDER = '[e-mail address removed]';

/** The text with every e-mail address replaced by a placeholder. */
export function maskEmails(text: string): string;
export function maskEmails(text: string | null): string | null;
export function maskEmails(text: string | null): string | null {
  return text === null ? null : text.replace(EMAIL, EMAIL_PLACEHOLDER);
}
