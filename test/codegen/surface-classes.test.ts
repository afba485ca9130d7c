/**
 * The tool-surface change report's classes (issue 28.6), one fixture per kind: the base document
 * test/fixtures/surface/before.yaml edited in one way, compared with itself unedited, and the report
 * holding exactly the expected changes. Kinds the reverse edit gives (a compatible widening is a
 * breaking narrowing read backwards) compare the two the other way round. What a foreign fixture
 * cannot say (a permission, a confirmation kind) is set on the review data directly.
 */
import { expect } from 'chai';
import { compareSurfaces } from '../../codegen/surface/diff.js';
import type { Surface } from '../../codegen/surface/surface.js';
import type { Doc } from './support.js';
import { BEFORE, changeLines, surfaceOf, variant, withReview } from './surface-support.js';

const createBody = (doc: Doc): Doc => doc.paths['/things'].post.requestBody.content['application/json'].schema;
const listParameter = (doc: Doc, name: string): Doc => doc.paths['/things'].get.parameters.find((p: Doc) => p.name === name);

interface Case {
  readonly title: string;
  readonly edit: (doc: Doc) => void;
  /** base → edited */
  readonly forward?: readonly string[];
  /** edited → base */
  readonly backward?: readonly string[];
}

const CASES: readonly Case[] = [
  { title: 'a tool removed / added', edit: (doc) => { delete doc.paths['/things/{id}/notes/{note}']; },
    forward: ['breaking things_note_delete  tool_removed'], backward: ['compatible things_note_delete  tool_added'] },
  { title: 'a tool renamed without an alias', edit: (doc) => { doc.paths['/reports'].get['x-mcp'].name = 'reports_summary'; },
    forward: ['breaking reports_summary  tool_renamed'] },
  { title: 'a tool renamed with an alias', edit: (doc) => { doc.paths['/reports'].get['x-mcp'] = { name: 'reports_summary', aliases: [{ name: 'reports_get', until: '2099-01-31' }] }; },
    forward: ['compatible reports_summary  tool_renamed_with_alias'] },
  { title: 'an argument removed / an optional argument added', edit: (doc) => { delete createBody(doc).properties.tags; },
    forward: ['breaking things_create tags argument_removed'], backward: ['compatible things_create tags argument_added'] },
  { title: 'an argument renamed', edit: (doc) => { listParameter(doc, 'q').name = 'query'; },
    forward: ['breaking things_list q argument_renamed'] },
  { title: 'an argument newly required / no longer required', edit: (doc) => { createBody(doc).required.push('amount'); },
    forward: ['breaking things_create amount argument_required'], backward: ['compatible things_create amount argument_optional'] },
  { title: 'a new required argument', edit: (doc) => { createBody(doc).properties.currency = { type: 'string', description: 'ISO 4217 code.' }; createBody(doc).required.push('currency'); },
    forward: ['breaking things_create currency argument_required'] },
  { title: 'a nested argument required (inside an object argument)', edit: (doc) => { createBody(doc).properties.owner.required = ['id']; },
    forward: ['breaking things_create owner.id argument_required'], backward: ['compatible things_create owner.id argument_optional'] },
  { title: 'a type narrowed / widened (number → integer)', edit: (doc) => { createBody(doc).properties.amount.type = 'integer'; },
    forward: ['breaking things_create amount type_narrowed'], backward: ['compatible things_create amount type_widened'] },
  { title: 'a type widened / narrowed (string → string or null)', edit: (doc) => { createBody(doc).properties.name.type = ['string', 'null']; },
    forward: ['compatible things_create name type_widened'], backward: ['breaking things_create name type_narrowed'] },
  { title: 'a type changed (string → integer) is narrowed both ways', edit: (doc) => { listParameter(doc, 'q').schema = { type: 'integer' }; },
    forward: ['breaking things_list q type_narrowed', 'compatible things_list q bound_widened', 'compatible things_list q bound_widened'],
    backward: ['breaking things_list q type_narrowed', 'breaking things_list q bound_tightened', 'breaking things_list q bound_tightened'] },
  { title: 'array items narrowed, at their path', edit: (doc) => { createBody(doc).properties.tags.items = { type: 'integer' }; },
    forward: ['breaking things_create tags[] type_narrowed'] },
  { title: 'an enum value removed / added', edit: (doc) => { createBody(doc).properties.kind.enum = ['a']; },
    forward: ['breaking things_create kind enum_value_removed'], backward: ['compatible things_create kind enum_value_added'] },
  { title: 'an enum where any value went before', edit: (doc) => { listParameter(doc, 'q').schema.enum = ['x', 'y']; },
    forward: ['breaking things_list q enum_value_removed'], backward: ['compatible things_list q enum_value_added'] },
  { title: 'a bound tightened / widened (maxLength down)', edit: (doc) => { createBody(doc).properties.name.maxLength = 80; },
    forward: ['breaking things_create name bound_tightened'], backward: ['compatible things_create name bound_widened'] },
  { title: 'a bound tightened (minimum made exclusive)', edit: (doc) => { const amount = createBody(doc).properties.amount; delete amount.minimum; amount.exclusiveMinimum = 0; },
    forward: ['breaking things_create amount bound_tightened'], backward: ['compatible things_create amount bound_widened'] },
  { title: 'a bound tightened (maxItems down, on an array argument)', edit: (doc) => { createBody(doc).properties.tags.maxItems = 5; },
    forward: ['breaking things_create tags bound_tightened'], backward: ['compatible things_create tags bound_widened'] },
  { title: 'a bound tightened (a pattern added, nested)', edit: (doc) => { createBody(doc).properties.owner.properties.id.pattern = '^p_'; },
    forward: ['breaking things_create owner.id bound_tightened'], backward: ['compatible things_create owner.id bound_widened'] },
  { title: 'a bound tightened (a format added)', edit: (doc) => { createBody(doc).properties.owner.properties.id.format = 'uuid'; },
    forward: ['breaking things_create owner.id bound_tightened'], backward: ['compatible things_create owner.id bound_widened'] },
  // things_create's outputSchema points at things_get's (src/runtime/output-schema.ts pointAtGetters): one report, at the getter.
  { title: 'an output field removed / added (every tool returning it, nested in a list page too)', edit: (doc) => { delete doc.components.schemas.Thing.properties.amount; },
    forward: ['breaking things_get amount output_field_removed', 'breaking things_list data[].amount output_field_removed'],
    backward: ['compatible things_get amount output_field_added', 'compatible things_list data[].amount output_field_added'] },
  { title: 'an output field\'s type changed (either way)', edit: (doc) => { doc.components.schemas.Thing.properties.owner.properties.email = { type: 'string' }; },
    forward: ['breaking things_get owner.email output_type_changed', 'breaking things_list data[].owner.email output_type_changed'],
    backward: ['breaking things_get owner.email output_type_changed', 'breaking things_list data[].owner.email output_type_changed'] },
  { title: 'an output value added / removed (callers may not handle a new one)', edit: (doc) => { doc.components.schemas.Thing.properties.status.enum = ['open', 'closed', 'lost']; },
    forward: ['breaking things_get status output_value_added', 'breaking things_list data[].status output_value_added'],
    backward: ['compatible things_get status output_value_removed', 'compatible things_list data[].status output_value_removed'] },
  { title: 'a tool that became / stopped being destructive', edit: (doc) => { doc.paths['/things/{id}/archive'].post['x-mcp'].annotations = { destructiveHint: true }; },
    forward: ['breaking things_archive  became_destructive'], backward: ['compatible things_archive  no_longer_destructive'] },
  { title: 'a tool that started / stopped moving money (and so became destructive)', edit: (doc) => { doc.paths['/things/{id}/pay'].post['x-kobana-moves-money'] = { outflow: 'none' }; },
    forward: ['breaking things_pay  became_destructive', 'breaking things_pay  moves_money'], backward: ['compatible things_pay  no_longer_destructive', 'compatible things_pay  no_longer_moves_money'] },
  { title: 'a tool that stopped / started being read-only (and idempotent)', edit: (doc) => { delete doc.paths['/things/preview'].post['x-kobana-touches']; },
    forward: ['breaking things_preview  no_longer_idempotent', 'breaking things_preview  no_longer_read_only'], backward: ['compatible things_preview  became_idempotent', 'compatible things_preview  became_read_only'] },
  { title: 'a scope added / removed', edit: (doc) => { doc.paths['/things/{id}'].get.security = [{ oauth: ['things.read', 'things.extra'] }]; },
    forward: ['breaking things_get  scope_added'], backward: ['compatible things_get  scope_removed'] },
  // The server requires the scopes and permission of each resource an operation changes too (src/runtime/required-access.ts).
  { title: 'a scope and a permission newly required through a resource the operation changes (x-kobana-touches)', edit: (doc) => { doc.paths['/things/{id}/pay'].post['x-kobana-touches'] = { changes: ['companies.manage'], shows: [] }; },
    forward: ['breaking things_pay  permission_added', 'breaking things_pay  scope_added'], backward: ['compatible things_pay  permission_removed', 'compatible things_pay  scope_removed'] },
  { title: 'a tool that left / joined a toolset', edit: (doc) => { doc.paths['/things/{id}'].get.tags = ['reports']; },
    forward: ['breaking things_get  left_toolset', 'compatible things_get  joined_toolset'] },
  { title: 'a default changed (the same call now does something else)', edit: (doc) => { listParameter(doc, 'status').schema.default = 'open'; },
    forward: ['breaking things_list status default_changed'], backward: ['breaking things_list status default_changed'] },
  { title: 'texts: the tool\'s description and title, an argument\'s description', edit: (doc) => {
    doc.paths['/things/{id}'].get.description = 'Reads one thing, with its owner.';
    doc.paths['/things/{id}'].get.summary = 'Read a thing';
    createBody(doc).properties.name.description = 'The name people call the thing by.';
  }, forward: ['text things_create name argument_description', 'text things_get  tool_description', 'text things_get  tool_title'] },
];

describe('tool-surface change report: a fixture per change class', function () {
  this.timeout(60_000);
  let base: Surface;
  before(async () => { base = await surfaceOf(BEFORE); });

  it('reports nothing between a document and itself', async () => {
    const report = compareSurfaces(base, await surfaceOf(BEFORE));
    expect(changeLines(report)).to.deep.equal([]);
    expect(report.tokens.tools).to.deep.equal([]);
    expect(report.unchecked).to.deep.equal([]);
  });

  for (const { title, edit, forward, backward } of CASES) {
    it(title, async () => {
      const edited = await surfaceOf(variant(edit));
      expect(forward ?? backward, 'a case says what it expects').to.not.be.empty;
      if (forward) expect(changeLines(compareSurfaces(base, edited)), 'base → edited').to.deep.equal([...forward].sort());
      if (backward) expect(changeLines(compareSurfaces(edited, base)), 'edited → base').to.deep.equal([...backward].sort());
    });
  }

  it('a permission added / removed, and a confirmation kind changed (review data)', () => {
    const stricter = withReview(base, 'things_get', { permissions: ['things.audit'] });
    expect(changeLines(compareSurfaces(base, stricter))).to.deep.equal(['breaking things_get  permission_added']);
    expect(changeLines(compareSurfaces(withReview(base, 'things_get', { permissions: ['things.view'] }), stricter))).to.deep.equal(['breaking things_get  permission_added', 'compatible things_get  permission_removed']);
    expect(changeLines(compareSurfaces(stricter, withReview(base, 'things_get', { permissions: [] })))).to.deep.equal(['compatible things_get  permission_removed']);
    const confirmed = withReview(base, 'things_note_delete', { confirmation: 'template' });
    expect(changeLines(compareSurfaces(confirmed, withReview(base, 'things_note_delete', { confirmation: 'describer' })))).to.deep.equal(['text things_note_delete  confirmation_changed']);
  });

  it('acknowledges a removal through the operation kept with x-mcp.exclude and x-mcp.breaking, once', async () => {
    const retire = (doc: Doc) => { doc.paths['/things/{id}/notes/{note}'].delete['x-mcp'] = { name: 'things_note_delete', exclude: true, breaking: { since: '2', reason: 'Notes are edited in the panel only.' } }; };
    const retired = await surfaceOf(variant(retire));
    expect(retired.retired).to.deep.equal([{ operationId: 'things.notes.delete', since: '2', reason: 'Notes are edited in the panel only.' }]);
    const report = compareSurfaces(base, retired);
    expect(changeLines(report)).to.deep.equal(['acknowledged things_note_delete  tool_removed']);
    expect(report.acknowledged[0]!.acknowledgement).to.deep.equal({ since: '2', reason: 'Notes are edited in the panel only.' });
    // A base that already carries the same acknowledgement does not acknowledge the next break of the tool.
    const destructive = await surfaceOf(variant((doc) => { doc.paths['/things/{id}/archive'].post['x-mcp'] = { name: 'things_archive', breaking: { since: '2', reason: 'r' } }; }));
    const again = await surfaceOf(variant((doc) => { doc.paths['/things/{id}/archive'].post['x-mcp'] = { name: 'things_archive', breaking: { since: '2', reason: 'r' }, annotations: { destructiveHint: true } }; }));
    expect(changeLines(compareSurfaces(destructive, again))).to.deep.equal(['breaking things_archive  became_destructive']);
  });

  it('counts the model-visible tokens per tool, per toolset and in total, before and after', async () => {
    const longer = await surfaceOf(variant((doc) => { doc.paths['/things/{id}'].get.description = 'Reads one thing, with its owner, its status and every field a list shows of it.'; }));
    const { tokens } = compareSurfaces(base, longer);
    expect(tokens.tools).to.have.length(1);
    const [get] = tokens.tools;
    expect(get!.name).to.equal('things_get');
    expect(get!.after! - get!.before!).to.be.greaterThan(5);
    expect(tokens.total.after - tokens.total.before).to.equal(get!.after! - get!.before!);
    const things = tokens.toolsets.find((toolset) => toolset.name === 'things')!;
    expect(things.after! - things.before!).to.equal(get!.after! - get!.before!);
    expect(tokens.toolsets.filter((toolset) => toolset.name !== 'things').every((toolset) => toolset.before === toolset.after)).to.equal(true);
    const removed = compareSurfaces(base, await surfaceOf(variant((doc) => { delete doc.paths['/things/{id}/notes/{note}']; }))).tokens;
    expect(removed.tools).to.deep.equal([{ name: 'things_note_delete', before: base.tools.get('things_note_delete')!.tokens, after: null }]);
    expect(removed.toolsets.find((toolset) => toolset.name === 'notes')).to.deep.include({ after: 0 });
  });
});
