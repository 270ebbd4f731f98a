/** No personal data: adapters drop contact fields; this scrubs e-mail addresses from verbatim prose. */
const EMAIL = /[\w.+-]+@[\w-]+(?:\.[\w-]+)+/g;

export const EMAIL_PLACEHOLDER = '[e-mail address removed]';

/** The text with every e-mail address replaced by a placeholder. */
export function maskEmails(text: string): string;
export function maskEmails(text: string | null): string | null;
export function maskEmails(text: string | null): string | null {
  return text === null ? null : text.replace(EMAIL, EMAIL_PLACEHOLDER);
}
