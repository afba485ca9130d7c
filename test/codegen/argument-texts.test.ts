/**
 * Arguments say what they are (issue 27, Build 3): "after lower-casing and dropping punctuation, no
 * argument description is its name with `_` read as a space, nor a subset of its name's words
 * ('Id.', 'Name.', 'Workspace id.'); an id says whose id it is."
 *
 * - Over the generated registry (the "Done when" line): every argument every tool shows — nested
 *   properties of object and array arguments and each filter of `filters` included — has a
 *   description that is more than its name. The rule is read here on its own, from the issue's
 *   words (not through codegen/argument-texts.ts), so a laxer generator check cannot hide a break.
 * - The generator's check (codegen/argument-texts.ts, run by plan-spec.ts): in a document whose
 *   `x-kobana-codegen.checks` has `argument-texts` (ours) each break is an ARGUMENT_TEXT warning at
 *   its operation, an error under `--strict`, which is how CI refuses a new endpoint with a lazy
 *   text; a document without the check is not held to it.
 */
import { existsSync, rmSync } from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import { restatesName, shownArguments } from '../../codegen/argument-texts.js';
import { CodegenError, formatWarning } from '../../codegen/errors.js';
import { generate } from '../../codegen/generate.js';
import { loadSpec } from '../../codegen/load-spec.js';
import { planSpec } from '../../codegen/plan-spec.js';
import { tools } from '../../generated/registry.gen.js';
import { FIXTURES, makeTempDir, readYaml, runCli, writeSpec } from './support.js';

type Schema = { [key: string]: unknown };

const FIXTURE = path.join(FIXTURES, 'argument-texts.yaml');
const FIXTURE_FILE = 'test/fixtures/specs/argument-texts.yaml';

/** The rule, word for word: lower-cased, punctuation dropped, `_` read as a space. */
function onlyItsName(name: string, description: unknown): boolean {
  if (typeof description !== 'string') return true; // missing counts as breaking it
  const words = (text: string) => text.toLowerCase().replace(/_/g, ' ').replace(/[^\p{L}\p{N}\s]+/gu, ' ').split(/\s+/).filter(Boolean);
  const named = new Set(words(name));
  return words(description).every((word) => named.has(word));
}

const isObject = (value: unknown): value is Schema => typeof value === 'object' && value !== null && !Array.isArray(value);

/** Every property of a tool's shown inputSchema at every depth, as `[path, name, description]`; a filter's operator keys (eq, in, gte…) are not arguments. */
function everyArgument(inputSchema: Schema, filtersArgument: string | undefined): Array<[string, string, unknown]> {
  const found: Array<[string, string, unknown]> = [];
  const propertiesOf = (schema: Schema) => Object.entries(isObject(schema.properties) ? schema.properties : {});
  const walk = (schema: Schema, at: string): void => {
    for (const [name, child] of propertiesOf(schema)) {
      const where = at === '' ? name : `${at}.${name}`;
      found.push([where, name, isObject(child) ? child.description : undefined]);
      if (!isObject(child)) continue;
      if (at === '' && name === filtersArgument) {
        for (const [field, filter] of propertiesOf(child)) found.push([`${where}.${field}`, field, isObject(filter) ? filter.description : undefined]);
      } else {
        walk(child, where);
      }
    }
    if (isObject(schema.items)) walk(schema.items, `${at}[]`);
    for (const key of ['anyOf', 'oneOf', 'allOf']) for (const member of Array.isArray(schema[key]) ? schema[key] as unknown[] : []) if (isObject(member)) walk(member, at);
  };
  walk(inputSchema, '');
  return found;
}

describe('arguments say what they are (issue 27, rule 3)', function () {
  describe('the generated registry', () => {
    it('reads the rule as the issue words it', () => {
      for (const [name, text] of [['id', 'Id.'], ['name', 'Name.'], ['workspace_id', 'Workspace id.'], ['due_date', 'due date'], ['cost_center_id', 'Cost center.'], ['file_name', 'File name.'], ['amount', ''], ['active', undefined]] as const) {
        expect(onlyItsName(name, text), `${name}: ${String(text)}`).to.equal(true);
      }
      expect(onlyItsName('id', "The payable's id.")).to.equal(false);
      expect(onlyItsName('due_date', 'Due date of the title (YYYY-MM-DD).')).to.equal(false);
    });

    it('finds the nested arguments too: array items, object properties and each filter', () => {
      const paths = tools.flatMap((tool) => everyArgument(tool.inputSchema as Schema, filtersArgumentOf(tool.args)).map(([where]) => `${tool.name} ${where}`));
      expect(paths).to.include.members([
        'finance_payables_create cost_center_allocations[].cost_center_id',
        'finance_payables_list filters.status',
        'finance_reconciliations_create items[].id',
      ]);
      expect(paths.filter((where) => /filters\.\w+\.(eq|in|gte|lte)$/.test(where)), 'operator keys').to.deep.equal([]);
    });

    it('no argument of any tool is described by its name only, or not at all', () => {
      expect(tools.length).to.be.greaterThan(50);
      const breaking = tools.flatMap((tool) => everyArgument(tool.inputSchema as Schema, filtersArgumentOf(tool.args))
        .filter(([, name, description]) => onlyItsName(name, description))
        .map(([where, , description]) => `${tool.name} ${where}: ${JSON.stringify(description ?? null)}`));
      expect(breaking).to.deep.equal([]);
    });

    it('an id says whose id it is: the statements tools take the bank account\'s id', () => {
      const idOf = (toolName: string) => ((tools.find((tool) => tool.name === toolName)!.inputSchema as Schema).properties as Record<string, Schema>)['id']!['description'];
      expect(idOf('finance_statements_import')).to.match(/account/i);
      expect(idOf('finance_statements_list')).to.match(/account/i);
      expect(idOf('finance_payables_settle')).to.match(/payable/i);
      const ids = tools.filter((tool) => isObject((tool.inputSchema as Schema).properties) && 'id' in ((tool.inputSchema as Schema).properties as Schema));
      expect(ids.length).to.be.greaterThan(40);
      for (const tool of ids) expect(idOf(tool.name), tool.name).to.not.match(/^(the )?id\.?$/i);
    });
  });

  describe('the generator\'s check', function () {
    this.timeout(60_000);

    it('applies the rule with the issue\'s examples, filler words and missing texts', () => {
      for (const [name, text] of [['id', 'Id.'], ['name', 'Name.'], ['workspace_id', 'Workspace id.'], ['workspace_id', 'Workspace-Id'], ['id', 'The id.'], ['id', 'Record id.'], ['status', 'Filter on `status`.'], ['person_id', 'Person filter.'], ['amount', ''], ['amount', undefined]] as const) {
        expect(restatesName(name, text), `${name}: ${String(text)}`).to.equal(true);
      }
      for (const [name, text] of [['id', "The payable's id."], ['id', 'The bank account whose statements these are.'], ['due_date', 'Due date of the title (YYYY-MM-DD).'], ['limit', 'Page size.']] as const) {
        expect(restatesName(name, text), `${name}: ${text}`).to.equal(false);
      }
    });

    it('walks nested arguments and each filter, not a filter\'s operators', () => {
      const shown = shownArguments({
        type: 'object',
        properties: {
          lines: { type: 'array', description: 'Split.', items: { type: 'object', properties: { cost_center_id: { type: 'string' } } } },
          filters: { type: 'object', properties: { amount: { type: 'object', description: 'Face value.', properties: { gte: { type: 'string' } } } } },
          payer: { anyOf: [{ type: 'object', properties: { name: { type: 'string' } } }] },
        },
      }, { lines: { in: 'body', name: 'lines' }, filters: { in: 'list', name: 'filters' }, payer: { in: 'body', name: 'payer' } });
      expect(shown.map((argument) => argument.path)).to.deep.equal(['lines', 'lines[].cost_center_id', 'filters', 'filters.amount', 'payer', 'payer.name']);
    });

    it('reports each lazy text of a Kobana document as an ARGUMENT_TEXT warning at its operation, naming the argument', async () => {
      const plan = planSpec(await loadSpec(FIXTURE));
      expect(plan.warnings.map(formatWarning)).to.have.members([
        `${FIXTURE_FILE}#/paths/~1v1~1bills~1{id}/get: argument id of finance_bills_get is described "Id.", which only repeats its name; say what it is (an id: whose id; a date or amount: of what) [ARGUMENT_TEXT]`,
        `${FIXTURE_FILE}#/paths/~1v1~1bills/get: argument filters.status of finance_bills_list has no description; say what it is (an id: whose id; a date or amount: of what) [ARGUMENT_TEXT]`,
        `${FIXTURE_FILE}#/paths/~1v1~1bills/post: argument due_date of finance_bills_create is described "Due date.", which only repeats its name; say what it is (an id: whose id; a date or amount: of what) [ARGUMENT_TEXT]`,
        `${FIXTURE_FILE}#/paths/~1v1~1bills/post: argument memo of finance_bills_create has no description; say what it is (an id: whose id; a date or amount: of what) [ARGUMENT_TEXT]`,
        `${FIXTURE_FILE}#/paths/~1v1~1bills/post: argument lines[].cost_center_id of finance_bills_create is described "Cost center.", which only repeats its name; say what it is (an id: whose id; a date or amount: of what) [ARGUMENT_TEXT]`,
      ]);
    });

    it('under --strict each one is an error and nothing is written; with texts that say what they are the run passes', () => {
      const dir = makeTempDir();
      try {
        const strict = runCli(['--spec', FIXTURE, '--out', path.join(dir, 'never'), '--strict', '--no-type-check']);
        expect(strict.status).to.equal(1);
        expect(strict.stderr.split('\n').filter((line) => line.endsWith('[ARGUMENT_TEXT; not allowed with --strict]'))).to.have.length(5);
        expect(strict.stderr).to.match(/^error: .*argument-texts\.yaml#\/paths\/~1v1~1bills~1\{id\}\/get: argument id of finance_bills_get is described "Id\.", which only repeats its name; .* \[ARGUMENT_TEXT; not allowed with --strict\]$/m);
        expect(existsSync(path.join(dir, 'never'))).to.equal(false);

        const doc = readYaml(FIXTURE);
        const bills = doc.paths['/v1/bills'];
        bills.get.parameters[1].description = 'Open (unpaid) or paid.';
        const body = bills.post.requestBody.content['application/json'].schema.properties;
        body.due_date.description = 'When the bill is due (YYYY-MM-DD).';
        body.memo.description = 'Free text for the person paying.';
        body.lines.items.properties.cost_center_id.description = "The cost center's id (see finance_cost_centers_list).";
        doc.paths['/v1/bills/{id}'].get.parameters[0].description = "The bill's id.";
        const fixed = runCli(['--spec', writeSpec(dir, 'fixed.yaml', doc), '--out', path.join(dir, 'out'), '--strict', '--no-type-check']);
        expect(fixed.status, fixed.stderr).to.equal(0);
        expect(fixed.stderr).to.not.include('ARGUMENT_TEXT');
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    });

    it('a document whose x-kobana-codegen.checks leave out argument-texts (or that has no settings) is shown as its authors wrote it, without ARGUMENT_TEXT warnings', async () => {
      const dir = makeTempDir();
      try {
        // Every operation still declares x-kobana-permission: the rule follows the setting, not the other extensions.
        const unchecked = readYaml(FIXTURE);
        unchecked['x-kobana-codegen'].checks = ['safety-metadata', 'confirmations'];
        const kept = await generate(writeSpec(dir, 'unchecked.yaml', unchecked), { typeCheck: false, strict: true });
        expect(kept.plan.tools.map((tool) => tool.name)).to.include('finance_bills_get');
        expect(kept.warnings).to.deep.equal([]);
        const foreign = readYaml(FIXTURE);
        delete foreign['x-kobana-codegen'];
        const result = await generate(writeSpec(dir, 'foreign.yaml', foreign), { typeCheck: false, strict: true });
        expect(result.plan.tools.map((tool) => tool.name)).to.include('bills_get');
        expect(result.warnings).to.deep.equal([]);
      } catch (error) {
        throw error instanceof AggregateError ? new Error((error.errors as CodegenError[]).map((each) => each.message).join('\n')) : error;
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    });

    it('our own contract has none (CI runs it under --strict)', async () => {
      const plan = planSpec(await loadSpec('openapi/v1.yaml'));
      expect(plan.tools.length).to.be.greaterThan(50);
      expect(plan.warnings.filter((warning) => warning.rule === 'ARGUMENT_TEXT').map(formatWarning)).to.deep.equal([]);
    });
  });
});

/** The name of a tool's `filters` argument (its target `list`/`filters`), if it has one. */
function filtersArgumentOf(args: { readonly [argument: string]: { readonly in: string; readonly name?: string } }): string | undefined {
  return Object.entries(args).find(([, target]) => target.in === 'list' && target.name === 'filters')?.[0];
}
