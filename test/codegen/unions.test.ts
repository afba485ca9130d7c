/**
 * Unions of every shape (issue 28, fix 1): array, object and scalar branches, mixes, nullable (3.0
 * `nullable`, a 3.1 null branch, a type list with null), nested in items and in branches, inside
 * allOf, with shared keywords — generated from test/fixtures/codegen-robust/. In every profile the
 * tool's form passes that profile's checker (codegen/profile-checkers.ts), and sample arguments
 * written in the form decode to canonical arguments the canonical schema (the runtime's ajv) accepts.
 */
import { expect } from 'chai';
import fc from 'fast-check';
import { generate } from '../../codegen/generate.js';
import { PROFILE_CHECKERS } from '../../codegen/profile-checkers.js';
import { createAjv } from '../../src/api/validation.js';
import { decodeArguments, toSchemaProfile, type ClientSchemaProfile } from '../../src/runtime/schema-profiles.js';
import type { ToolDefinition } from '../../src/runtime/types.js';
import { encodeArguments, validArguments } from '../helpers/schema-profile-samples.js';

type Obj = Record<string, unknown>;

const FIXTURES = new URL('../fixtures/codegen-robust/', import.meta.url);
const DOCUMENTS = ['union-array-branch.yaml', 'unions-3.1.yaml', 'unions-3.0.yaml'];
const CLIENT_PROFILES: readonly ClientSchemaProfile[] = ['openai', 'gemini'];
const RUNS_PER_TOOL = 25;

async function toolsOf(document: string): Promise<readonly ToolDefinition[]> {
  const { plan, warnings } = await generate(new URL(document, FIXTURES).pathname, { typeCheck: false });
  expect(warnings.map((w) => w.detail), document).to.deep.equal([]);
  return plan.tools;
}

/** Canonical samples of the tool's arguments: what the canonical schema accepts. */
function samples(tool: ToolDefinition): fc.Arbitrary<Obj> {
  const valid = createAjv().compile(tool.inputSchema);
  return (validArguments(tool.inputSchema as Obj) as fc.Arbitrary<Obj>).filter((sample) => valid(sample));
}

describe('unions of every shape', function () {
  this.timeout(60_000);

  it('the 18-line document of the issue generates, its union typed by its own branches', async () => {
    const [tool] = await toolsOf('union-array-branch.yaml');
    const ids = ((tool!.inputSchema as Obj).properties as Obj).ids;
    expect(ids).to.deep.equal({ oneOf: [{ type: 'string' }, { type: 'array', items: { type: 'string' } }] });
  });

  for (const document of DOCUMENTS) {
    describe(document, () => {
      let tools: readonly ToolDefinition[] = [];
      before(async () => { tools = await toolsOf(document); });

      it('canonical: every inputSchema compiles with the runtime ajv and takes its samples', () => {
        expect(tools).to.not.be.empty;
        for (const tool of tools) fc.assert(fc.property(samples(tool), () => true), { numRuns: RUNS_PER_TOOL });
      });

      for (const profile of CLIENT_PROFILES) {
        it(`${profile}: every tool's form passes the checker, and its arguments decode to accepted canonical arguments`, () => {
          expect(tools).to.not.be.empty;
          for (const tool of tools) {
            const profiled = toSchemaProfile(profile, tool.inputSchema);
            expect(PROFILE_CHECKERS[profile](tool.name, profiled.schema), tool.name).to.deep.equal([]);
            const canonical = createAjv().compile(tool.inputSchema);
            fc.assert(fc.property(samples(tool), (sample) => {
              const { encoded, expected } = encodeArguments(profiled, sample);
              const decoded = decodeArguments(profiled.decoder, encoded);
              expect(decoded, `${tool.name} ${JSON.stringify(encoded)}`).to.deep.equal(expected);
              expect(canonical(decoded), `${tool.name} ${JSON.stringify(decoded)}: ${JSON.stringify(canonical.errors)}`).to.equal(true);
            }), { numRuns: RUNS_PER_TOOL });
          }
        });
      }
    });
  }

  it('3.0 nullable on a union adds a null branch (null is accepted), and on allOf a null type', async () => {
    const [tool] = await toolsOf('unions-3.0.yaml');
    const properties = (tool!.inputSchema as Obj).properties as Record<string, Obj>;
    expect(properties.value!.oneOf).to.deep.include({ type: 'null' });
    expect(properties.tagged!.type).to.deep.equal(['object', 'null']);
    expect(createAjv().compile(tool!.inputSchema)({ value: null, maybe: null, tagged: null })).to.equal(true);
  });

  it('the profiles take a union written with sibling keywords its branches also carry (type list, items)', () => {
    const written: Obj = {
      type: 'object',
      properties: {
        ids: { type: ['string', 'array'], items: { type: ['string', 'number', 'boolean', 'object', 'null'] }, oneOf: [{ type: 'string' }, { type: 'array', items: { type: 'string' }, maxItems: 3 }], maxItems: 5 },
      },
      required: ['ids'],
      additionalProperties: false,
    };
    const canonical = createAjv().compile(written);
    for (const profile of CLIENT_PROFILES) {
      const profiled = toSchemaProfile(profile, written);
      expect(PROFILE_CHECKERS[profile]('tool', profiled.schema), profile).to.deep.equal([]);
      for (const sample of [{ ids: 'a' }, { ids: ['a', 'b'] }]) {
        const { encoded, expected } = encodeArguments(profiled, sample);
        expect(decodeArguments(profiled.decoder, encoded)).to.deep.equal(expected);
        expect(canonical(expected), JSON.stringify(expected)).to.equal(true);
      }
    }
    const ids = ((toSchemaProfile('openai', written).schema.properties as Obj).ids as { anyOf: Obj[] }).anyOf;
    expect(ids.find((member) => member.type === 'array')).to.deep.include({ items: { type: 'string' }, maxItems: 3 });
  });

  it('openai: a nullable union carried as JSON text keeps null reachable, and an optional one is listed in set_null', () => {
    const written: Obj = {
      type: 'object',
      properties: { v: { oneOf: [{ type: 'string' }, { type: 'object', additionalProperties: { type: 'string' } }, { type: 'null' }] } },
      additionalProperties: false,
    };
    const canonical = createAjv().compile(written);
    const profiled = toSchemaProfile('openai', written);
    expect(PROFILE_CHECKERS.openai('tool', profiled.schema)).to.deep.equal([]);
    const properties = profiled.schema.properties as Record<string, Obj>;
    expect(properties.v!.type).to.deep.equal(['string', 'null']);
    expect(properties.set_null).to.deep.include({ anyOf: [{ type: 'array', items: { type: 'string', enum: ['v'] } }, { type: 'null' }] });
    for (const sample of [{ v: null }, { v: 'a' }, { v: { k: 'x' } }, {}]) {
      const { encoded, expected } = encodeArguments(profiled, sample);
      expect(expected, JSON.stringify(sample)).to.deep.equal(sample);
      expect(decodeArguments(profiled.decoder, encoded), JSON.stringify(encoded)).to.deep.equal(expected);
      expect(canonical(expected), JSON.stringify(expected)).to.equal(true);
    }
  });
});
