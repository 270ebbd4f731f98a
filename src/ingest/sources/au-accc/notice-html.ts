/**
 * The site's Drupal markup, read with htmlparser2: one `field--name-field-<name>` block per notice
 * field (`psa-recall-hazards`, `psa-product-category`, …), its values in `field__item` elements. The
 * same blocks appear in a feed item's `description` and on the notice page.
 */
import { hasChildren, isTag, isText, type AnyNode, type Document, type Element } from 'domhandler';
import { DomUtils, parseDocument } from 'htmlparser2';

/** Elements whose end is a line break in visible text. */
const BLOCKS = new Set(['p', 'li', 'div', 'h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'tr', 'ul', 'ol']);

/** Parses HTML (entities decoded once, as a browser does). */
export function parseHtml(html: string | Buffer): Document {
  return parseDocument(typeof html === 'string' ? html : html.toString('utf8'));
}

/** Visible text: block ends and `<br>` as line breaks, other tags as a space, whitespace runs collapsed. */
export function nodeText(node: AnyNode | readonly AnyNode[]): string {
  let out = '';
  const walk = (n: AnyNode): void => {
    if (isText(n)) out += n.data;
    else if (isTag(n)) {
      if (n.name === 'script' || n.name === 'style') return;
      if (n.name === 'br') out += '\n';
      else out += ' ';
      for (const c of n.children) walk(c);
      if (BLOCKS.has(n.name)) out += '\n';
      else out += ' ';
    } else if (hasChildren(n)) for (const c of n.children) walk(c);
  };
  for (const n of Array.isArray(node) ? node : [node as AnyNode]) walk(n);
  return out
    .split('\n')
    .map((line) => line.replace(/\s+/g, ' ').trim())
    .filter((line) => line !== '')
    .join('\n');
}

/** Visible text of an HTML fragment. */
export function htmlText(html: string): string {
  return nodeText(parseHtml(html).children);
}

function hasClass(el: Element, name: string): boolean {
  return (el.attribs.class ?? '').split(/\s+/).includes(name);
}

/** The first `field--name-field-<name>` block under `root`, if any. */
export function fieldBlock(root: Document | Element, name: string): Element | undefined {
  return (
    DomUtils.findOne((el) => hasClass(el, `field--name-field-${name}`), root.children, true) ?? undefined
  );
}

/**
 * The values of a field: its `field__item` elements (the block itself when it is the item), without
 * its `field__label` heading; none when the page has no such block.
 */
export function fieldItems(root: Document | Element, name: string): Element[] {
  const block = fieldBlock(root, name);
  if (block === undefined) return [];
  const items = DomUtils.findAll((el) => hasClass(el, 'field__item'), block.children);
  // An item holding another field's items (a nested block) is read once, as the outer item.
  const outer = items.filter(
    (el) => !items.some((other) => other !== el && DomUtils.existsOne((x) => x === el, other.children)),
  );
  if (outer.length > 0) return outer;
  return [block];
}

/** A field's values as visible text, the label left out; empty values dropped. */
export function fieldTexts(root: Document | Element, name: string): string[] {
  return fieldItems(root, name)
    .map((el) => nodeText(el.children.filter((c) => !(isTag(c) && hasClass(c, 'field__label')))))
    .filter((t) => t !== '');
}

/** A field's values joined by line breaks, or null when it has none. */
export function fieldText(root: Document | Element, name: string): string | null {
  const texts = fieldTexts(root, name);
  return texts.length === 0 ? null : texts.join('\n');
}

/** The `datetime` attributes of the `<time>` elements of a field, in order. */
export function fieldTimes(root: Document | Element, name: string): string[] {
  const block = fieldBlock(root, name);
  if (block === undefined) return [];
  return DomUtils.findAll((el) => el.name === 'time', block.children).map((el) => el.attribs.datetime ?? '');
}

/** Every `field--name-field-psa-*` block name on the page (`psa-recall-hazards`, …), in page order. */
export function fieldNames(root: Document | Element): string[] {
  const names = new Set<string>();
  for (const el of DomUtils.findAll(
    (e) => /\bfield--name-field-psa-/.test(e.attribs.class ?? ''),
    root.children,
  )) {
    const m = /\bfield--name-field-(psa-[a-z0-9-]+)/.exec(el.attribs.class ?? '');
    if (m) names.add(m[1]!);
  }
  return [...names];
}
