/**
 * The ACCC recalls RSS 2.0 feed, checked at the edge (../../validate.ts): every item needs a title
 * and a link; its `description` carries the notice as HTML (notice-html.ts).
 */
import { Type, type Static } from 'typebox';
import { formatError } from '../../errors.ts';
import type { SetAside } from '../../source.ts';
import {
  checkRecords,
  compileValidator,
  createXmlParser,
  fieldOf,
  memberOf,
  parseXmlPage,
} from '../../validate.ts';

const parser = createXmlParser({
  ignoreAttributes: true,
  parseTagValue: false,
  trimValues: true,
  isArray: (name) => name === 'item' || name === 'category',
});

const Text = Type.Optional(Type.String());

/** One feed item. */
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

/** One feed document: its build date and its items. */
export interface RecallFeed {
  lastBuildDate: string | null;
  items: FeedItem[];
  setAside: SetAside[];
}

const ChannelValidator = compileValidator(Channel);
const FeedItemValidator = compileValidator(FeedItem);

/** Parses one feed document; anything but `<rss><channel>` is a format error. */
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
