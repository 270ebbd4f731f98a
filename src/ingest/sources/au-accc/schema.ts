/**
 * The Product Safety Australia recalls RSS feed (RSS 2.0: `<rss><channel><item>…`), checked at
 * the edge (validate.ts): the elements we read must be text, and every item needs a title and
 * a link. Each item's `description` carries the recall notice as HTML rendered by the site's
 * CMS (Drupal), one `field--name-field-psa-recall-*` block per notice field, read here too.
 */
import { Type, type Static } from '@sinclair/typebox';
import { XMLParser } from 'fast-xml-parser';
import { formatError } from '../../errors.ts';
import { decodeEntitiesOnce } from '../../extract/html-text.ts';
import type { SetAside } from '../../source.ts';
import { checkRecords, compileValidator, fieldOf, memberOf, parseXmlPage } from '../../validate.ts';

const parser = new XMLParser({
  ignoreAttributes: true,
  parseTagValue: false,
  trimValues: true,
  isArray: (name) => name === 'item' || name === 'category',
});

const Text = Type.Optional(Type.String());

export const FeedItem = Type.Object(
  {
    title: Type.String({ minLength: 1 }),
    link: Type.String({ minLength: 1 }),
    description: Text,
    pubDate: Text,
    guid: Text,
    category: Type.Optional(Type.Array(Type.String())),
  },
  { additionalProperties: true },
);
export type FeedItem = Static<typeof FeedItem>;

const Channel = Type.Object(
  { title: Text, lastBuildDate: Text, item: Type.Optional(Type.Array(Type.Unknown())) },
  { additionalProperties: true },
);

export interface RecallFeed {
  lastBuildDate: string | null;
  items: FeedItem[];
  /** Items that drifted, set aside with the reason. */
  setAside: SetAside[];
}

const ChannelValidator = compileValidator(Channel);
const FeedItemValidator = compileValidator(FeedItem);

/** Parses one feed document (validate.ts policy); not RSS (`<rss><channel>`) is a format error. */
export function parseRecallFeed(body: Buffer | string, url?: string): RecallFeed {
  const doc = parseXmlPage(parser, body, 'ACCC recalls feed', url);
  const channel = memberOf(memberOf(doc, 'rss'), 'channel');
  if (!ChannelValidator.check(channel)) {
    throw formatError(
      `ACCC recalls feed is not RSS (<rss><channel>): ${ChannelValidator.firstError(channel)}`,
      url,
    );
  }
  const { records, setAside } = checkRecords(channel.item ?? [], FeedItemValidator, {
    place: (i) => `item[${i}]`,
    idOf: fieldOf('link'),
  });
  return { lastBuildDate: channel.lastBuildDate?.trim() || null, items: records, setAside };
}

// --- the notice HTML ----------------------------------------------------------------------------

/** Visible text of an HTML fragment: block ends and `<br>` become line breaks, runs of spaces one space. */
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
