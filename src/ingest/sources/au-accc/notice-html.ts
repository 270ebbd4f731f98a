/**
 * The recall notice in an ACCC feed item's `description`: HTML rendered by the site's CMS
 * (Drupal), one `field--name-field-psa-recall-*` block per notice field.
 */
import { decodeEntitiesOnce } from '../../extract/html-text.ts';

/**
 * Visible text of an HTML fragment: block ends and `<br>` become line breaks, runs of spaces one
 * space. Unlike `htmlToLines` (extract/html-text.ts), every other tag becomes a space, so
 * `<strong>Batch:</strong>123` reads `Batch: 123`, and entities are decoded once.
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

/**
 * The notice's fields, by name (`pra-number`, `hazards`, `consumer-action` …): for each
 * `field--name-field-psa-recall-<name>` block, the raw HTML of its values (`field__item`
 * blocks; the block itself without its label when it has none).
 */
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
