/** Titles made from agency text: cut to a length at a word boundary. */

/** `text` cut to at most `max` characters at the last space that fits (mid-word when none does). */
export function clipAtWord(text: string, max: number): string {
  if (text.length <= max) return text;
  const space = text.slice(0, max + 1).lastIndexOf(' ');
  return space > 0 ? text.slice(0, space) : text.slice(0, max);
}
