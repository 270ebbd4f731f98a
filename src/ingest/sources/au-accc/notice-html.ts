/** The notice in an item's `description`: Drupal HTML, a `field--name-field-psa-recall-*` block per field. */
import { decodeEntitiesOnce } from '../../extract/html-text.ts';

/**
 * Visible text: block ends and `<br>` as line breaks, other tags as a space (unlike `htmlToLines`,
 * so `<strong>Batch:</strong>123` reads `Batch: 123`), entities decoded once.
 */
export function htmlText(html: string): string {
  const text = html
    .replace(/<(script|style)\b[\s\S]*?<\/\1>/gi, ' ')
    .replace(/<br\s*\/?>|<\/(?:p|li|div|h[1-6]|tr)>/gi, '\n')
    .replace(/<[^>]*>/g, ' ');
  return decodeEntitiesOnce(text)
    .split('\n')
    .map((line) => line.replace(/\s+/g, ' ').trim())
    .filter((line) => line !== '')
    .join('\n');
}

/** The whole `<div …>…</div>` element that opens at `open`, walking nested divs. */
function elementAt(html: string, open: number): string {
  const tag = /<div\b[^>]*>|<\/div\s*>/gi;
  tag.lastIndex = open;
  let depth = 0;
  for (let m = tag.exec(html); m !== null; m = tag.exec(html)) {
    depth += m[0][1] === '/' ? -1 : 1;
    if (depth === 0) return html.slice(open, m.index + m[0].length);
  }
  return html.slice(open);
}

/** Each `field--name-field-psa-recall-<name>` block's values (`field__item`s, else the unlabelled block). */
export function noticeFields(html: string): Map<string, string[]> {
  const fields = new Map<string, string[]>();
  const start = /<div\b[^>]*\bclass="[^"]*\bfield--name-field-psa-recall-([a-z0-9-]+)[^"]*"[^>]*>/gi;
  for (const m of html.matchAll(start)) {
    const name = m[1]!.toLowerCase();
    if (fields.has(name)) continue;
    const block = elementAt(html, m.index ?? 0).replace(
      /<(h[1-6]|div)\b[^>]*\bclass="[^"]*\bfield__label\b[^"]*"[^>]*>[\s\S]*?<\/\1>/i,
      '',
    );
    const items: string[] = [];
    const item = /<div\b[^>]*\bclass="[^"]*\bfield__item\b[^"]*"[^>]*>/gi;
    for (const im of block.matchAll(item)) items.push(elementAt(block, im.index ?? 0));
    fields.set(name, items.length > 0 ? items : [block]);
  }
  return fields;
}
