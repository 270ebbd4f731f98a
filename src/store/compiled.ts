/** Query-builder queries compiled once, run prepared: type-checked, no per-request compile or parse. */
import type { Compilable } from 'kysely';
import { BoundedCache, type CacheFigures, type CountedCache } from '../node/caches.ts';
import type { Engine } from './engine.ts';

/** A parameter named when the query is built and bound on each run. */
class Placeholder {
  constructor(readonly name: string) {}
}

/** A compiled query with named parameters `P`, returning rows `R`. */
export interface Statement<P, R> {
  all(params: P): Promise<R[]>;
  /** Runs a write; the number of rows it changed. */
  run(params: P): Promise<number>;
}

/** The row type of a query built with the query builder. */
export type RowOf<C> = C extends Compilable<infer R> ? R : never;

/** Builds a query once, `p.<name>` for each parameter, and prepares it; builder constants stay as given. */
export function compile<P extends object, C extends Compilable<unknown>>(
  engine: Engine,
  build: (p: P) => C,
): Statement<P, RowOf<C>> {
  const names = new Proxy({}, { get: (_target, name) => new Placeholder(String(name)) }) as P;
  const query = build(names).compile();
  const slots = query.parameters.map((value) => (value instanceof Placeholder ? value.name : undefined));
  const bind = (params: P) =>
    slots.map((name, i) =>
      name === undefined ? query.parameters[i] : (params as Record<string, unknown>)[name],
    );
  const prepared = engine.prepare<RowOf<C>>(query);
  return {
    all: (params) => prepared.all(bind(params)),
    run: (params) => prepared.run(bind(params)),
  };
}

/** Statements of a query whose shape varies, compiled per shape on first use; LRU-dropped past `max`. */
export class StatementCache<P, R> implements CountedCache {
  private readonly cache: BoundedCache<string, Statement<P, R>>;

  constructor(max: number, name = 'statements') {
    this.cache = new BoundedCache(name, { max });
  }

  get name(): string {
    return this.cache.name;
  }

  /** The statement of a shape, built by `make` the first time. */
  get(shape: string, make: () => Statement<P, R>): Statement<P, R> {
    let statement = this.cache.get(shape);
    if (statement === undefined) this.cache.set(shape, (statement = make()));
    return statement;
  }

  figures(): CacheFigures {
    return this.cache.figures();
  }
}

/** A table's columns in full, for column-list statements: leaving one out fails to compile, naming it. */
export function allColumns<T>() {
  return <const C extends readonly (keyof T & string)[]>(
    columns: C &
      ([Exclude<keyof T, C[number]>] extends [never] ? unknown : { missing: Exclude<keyof T, C[number]> }),
  ): C => columns;
}
