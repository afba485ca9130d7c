/**
 * A query of fixed shape, built and compiled once per Kysely instance and then run with new
 * values: building and compiling a join is a sizeable share of a read's CPU (bench/README.md),
 * and the text never changes between calls, only the parameters.
 *
 * The builder receives one placeholder per named value and must pass each straight through as a
 * bound value (`.where('t.id', '=', slot.id)`); the placeholders are found again among the
 * compiled parameters, so a builder that transforms one (or drops it) is refused when it is
 * prepared. Everything else the builder binds is a constant of the text. The compile goes
 * through the instance's own query compiler, so the workspace guard checks the shape exactly
 * as it checks any other query (src/store/workspace-guard.ts). A transaction is a new instance:
 * its first use builds again (writes are not the hot path).
 */
import { CompiledQuery, type Compilable, type Kysely } from 'kysely';

interface Compiled {
  readonly sql: string;
  readonly parameters: readonly unknown[];
  /** For each parameter position holding a placeholder, the value's name. */
  readonly slots: ReadonlyArray<readonly [position: number, name: string]>;
}

const PLACEHOLDER_PREFIX = '\u0000prepared-query-slot:';

export function prepareQuery<Db, Names extends string, Row>(
  names: readonly Names[],
  build: (db: Kysely<Db>, slot: Readonly<Record<Names, string>>) => Compilable<Row>,
): (db: Kysely<Db>, values: Readonly<Record<Names, unknown>>) => Promise<Row[]> {
  const compiled = new WeakMap<Kysely<Db>, Compiled>();
  const placeholders = Object.fromEntries(names.map((name) => [name, `${PLACEHOLDER_PREFIX}${name}\u0000`])) as Record<Names, string>;
  const byPlaceholder = new Map<unknown, string>(names.map((name) => [placeholders[name], name]));

  function compile(db: Kysely<Db>): Compiled {
    const { sql, parameters } = build(db, placeholders).compile();
    const slots: Array<readonly [number, string]> = [];
    parameters.forEach((value, position) => {
      const name = byPlaceholder.get(value);
      if (name !== undefined) slots.push([position, name]);
    });
    const missing = names.filter((name) => !slots.some(([, found]) => found === name));
    if (missing.length > 0) throw new Error(`prepareQuery: the builder does not bind ${missing.join(', ')} as a value`);
    return { sql, parameters, slots };
  }

  return async (db, values) => {
    let query = compiled.get(db);
    if (query === undefined) {
      query = compile(db);
      compiled.set(db, query);
    }
    const parameters = [...query.parameters];
    for (const [position, name] of query.slots) parameters[position] = values[name as Names];
    const { rows } = await db.executeQuery<Row>(CompiledQuery.raw(query.sql, parameters));
    return rows;
  };
}
