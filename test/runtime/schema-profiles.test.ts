/**
 * Client schema profiles (src/runtime/schema-profiles.ts, docs/protocol.md#client-schema-profiles):
 * every tool's OpenAI-strict and Gemini-safe form passes that provider's documented rules (checked
 * by codegen/profile-checkers.ts, not by the transform), and sample arguments written in
 * either form decode to the canonical arguments — over every tool and over schema shapes today's
 * tools do not use ($ref, allOf, unions of objects, free-form objects, nullable enums).
 */
import { readFileSync } from 'node:fs';
import { expect } from 'chai';
import fc from 'fast-check';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsImport from 'ajv-formats';
import { tools } from '../../generated/registry.gen.js';
import { compileSchema } from '../../src/api/validation.js';
import type { JsonSchema } from '../../src/runtime/types.js';
import {
  SchemaProfileError,
  SET_NULL_PROPERTY,
  decodeArguments,
  toSchemaProfile,
  type ClientSchemaProfile,
} from '../../src/runtime/schema-profiles.js';
import { checkGeminiSafe, checkOpenAiStrict } from '../../codegen/profile-checkers.js';
import { encodeArguments, validArguments } from '../helpers/schema-profile-samples.js';

type Obj = Record<string, unknown>;
type AddFormats = (ajv: Ajv2020) => Ajv2020;
const addFormats: AddFormats = (addFormatsImport as unknown as { default?: AddFormats }).default ?? (addFormatsImport as unknown as AddFormats);

/** The profile forms are JSON Schema too (ajv reads Gemini's OpenAPI `nullable` with a `type`). */
const profileAjv = addFormats(new Ajv2020({ strict: false, allErrors: true }));
/** Gemini's `nullable` says "the value may be null", enum or not: the same for ajv. */
function asJsonSchema(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(asJsonSchema);
  if (schema === null || typeof schema !== 'object') return schema;
  const { nullable, ...rest } = schema as Obj;
  const out: Obj = {};
  for (const [key, value] of Object.entries(rest)) out[key] = key === 'enum' || key === 'required' ? value : asJsonSchema(value);
  return nullable === true ? { anyOf: [out, { type: 'null' }] } : out;
}
const PROFILES: readonly ClientSchemaProfile[] = ['openai', 'gemini'];
const CHECKERS = { openai: checkOpenAiStrict, gemini: checkGeminiSafe };
/** Cases per tool and profile: 65 tools × 2 profiles × 10 ≈ 1,300 round trips. */
const RUNS_PER_TOOL = 10;

/** Shapes the generator does not emit today; the transforms must handle any JSON Schema. */
const FIXTURES: Readonly<Record<string, Obj>> = {
  'unions, refs, allOf, free-form objects and nullable enums': {
    type: 'object',
    $defs: {
      money: { type: ['string', 'number'], pattern: '^\\d{1,6}(\\.\\d{1,2})?$', minimum: 0, maximum: 100000, description: 'An amount.' },
      range: { type: 'object', properties: { gte: { type: 'string', format: 'date' }, lt: { type: 'string', format: 'date' } }, additionalProperties: false, minProperties: 1 },
    },
    properties: {
      id: { type: 'string', format: 'uuid', description: 'The id.' },
      amount: { $ref: '#/$defs/money' },
      when: { description: 'A day or a range.', anyOf: [{ type: 'string', format: 'date' }, { $ref: '#/$defs/range' }] },
      shape: { oneOf: [{ type: 'object', properties: { kind: { const: 'circle' }, radius: { type: 'number', exclusiveMinimum: 0 } }, required: ['kind', 'radius'], additionalProperties: false },
        { type: 'object', properties: { kind: { const: 'square' }, side: { type: 'integer', minimum: 1 } }, required: ['kind', 'side'], additionalProperties: false }] },
      level: { type: ['string', 'null'], enum: ['low', 'high', null], description: 'Level; `null` clears it.' },
      tags: { type: 'array', items: { type: 'string', minLength: 1, maxLength: 8 }, uniqueItems: true, maxItems: 4 },
      metadata: { type: 'object', additionalProperties: { type: 'integer' }, description: 'Free-form counters.' },
      anything: { description: 'Any JSON value.' },
      merged: { allOf: [{ type: 'object', properties: { a: { type: 'integer' } }, required: ['a'] }, { properties: { b: { type: 'boolean' } } }], additionalProperties: false },
      size: { type: 'integer', enum: [1, 2, 3], default: 2 },
      bounds: { type: 'object', propertyNames: { enum: ['gte', 'lt'] }, additionalProperties: { type: ['string', 'number'], pattern: '^\\d+$', minimum: 0 } },
      nested: { type: 'object', properties: { note: { type: ['string', 'null'], maxLength: 20 }, flag: { type: 'boolean' } }, additionalProperties: false },
    },
    required: ['id'],
    additionalProperties: false,
  },
  'a tool without arguments': { type: 'object', properties: {}, additionalProperties: false },
};

function subjects(): { name: string; schema: Obj }[] {
  return [
    ...tools.map((tool) => ({ name: tool.name, schema: tool.inputSchema as Obj })),
    ...Object.entries(FIXTURES).map(([name, schema]) => ({ name: `fixture: ${name}`, schema })),
  ];
}

describe('client schema profiles', () => {
  for (const profile of PROFILES) {
    describe(profile, () => {
      it(`every tool's ${profile} form passes the ${profile === 'openai' ? 'OpenAI strict' : 'Gemini'} rules (${tools.length} tools)`, () => {
        const failures: string[] = [];
        for (const tool of tools) {
          const { schema } = toSchemaProfile(profile, tool.inputSchema);
          for (const problem of CHECKERS[profile](tool.name, schema)) failures.push(`${tool.name}: ${problem}`);
        }
        expect(failures).to.deep.equal([]);
      });

      it('the checker is not vacuous: canonical schemas with optional arguments fail it', () => {
        const withOptional = tools.filter((tool) => Object.keys((tool.inputSchema as Obj).properties as Obj).length > ((tool.inputSchema as Obj).required as unknown[] | undefined ?? []).length);
        expect(withOptional.length).to.be.greaterThan(tools.length / 2);
        for (const tool of withOptional) expect(CHECKERS[profile](tool.name, tool.inputSchema), tool.name).to.not.be.empty;
      });

      it(`generated/tools-input.${profile}.gen.json is the review copy of what ?schema=${profile} serves`, () => {
        const reviewed = JSON.parse(readFileSync(new URL(`../../generated/tools-input.${profile}.gen.json`, import.meta.url), 'utf8')) as unknown[];
        const served = tools.map(({ name, inputSchema }) => ({ name, inputSchema: toSchemaProfile(profile, inputSchema).schema }));
        expect(JSON.parse(JSON.stringify(served))).to.deep.equal(reviewed);
      });

      it('the generic shapes pass the rules too', () => {
        for (const [name, fixture] of Object.entries(FIXTURES)) {
          const { schema } = toSchemaProfile(profile, fixture);
          expect(CHECKERS[profile]('fixture', schema), name).to.deep.equal([]);
        }
      });

      it('sample arguments in the profile form validate against it and decode to the canonical arguments', () => {
        for (const subject of subjects()) {
          const profiled = toSchemaProfile(profile, subject.schema);
          const canonicalValid = compileSchema(subject.schema as JsonSchema);
          const profileValid = profileAjv.compile(asJsonSchema(profiled.schema) as object);
          fc.assert(
            fc.property(validArguments(subject.schema), (sample) => {
              fc.pre(canonicalValid(sample));
              const { encoded, expected } = encodeArguments(profiled, sample as Obj);
              expect(profileValid(encoded), `${subject.name}: ${JSON.stringify(profileValid.errors)}`).to.equal(true);
              expect(decodeArguments(profiled.decoder, encoded), subject.name).to.deep.equal(expected);
              // `expected` differs from the sample only where Gemini sends a number as text; the canonical
              // schema takes that text unless its string form is narrower than its number form (the fixture's ^\d+$).
              if (!canonicalValid(expected)) expect(expected, subject.name).to.not.deep.equal(sample);
              if (!subject.name.startsWith('fixture')) expect(canonicalValid(expected), subject.name).to.equal(true);
            }),
            { numRuns: RUNS_PER_TOOL },
          );
        }
      });
    });
  }

  describe('decoding', () => {
    const update: Obj = {
      type: 'object',
      properties: {
        id: { type: 'string' },
        name: { type: 'string' },
        category_id: { type: ['string', 'null'], description: '`null` clears it.' },
        filters: { type: 'object', properties: { due: { anyOf: [{ type: 'string' }, { type: 'object', properties: { gte: { type: 'string' } }, additionalProperties: false }] } }, additionalProperties: false },
        extra: { type: 'object', additionalProperties: true },
      },
      required: ['id'],
      additionalProperties: false,
    };

    it('openai: null means absent for an optional property, and set_null says which to set to null', () => {
      const { decoder, schema } = toSchemaProfile('openai', update);
      expect((schema as Obj).required).to.deep.equal(['id', 'name', 'category_id', 'filters', 'extra', SET_NULL_PROPERTY]);
      expect(decodeArguments(decoder, { id: 'x', name: null, category_id: null, filters: null, extra: null, set_null: null })).to.deep.equal({ id: 'x' });
      expect(decodeArguments(decoder, { id: 'x', name: 'n', category_id: null, filters: null, extra: null, set_null: ['category_id'] }))
        .to.deep.equal({ id: 'x', name: 'n', category_id: null });
      expect(decodeArguments(decoder, { id: 'x', name: null, category_id: null, filters: { due: { gte: '2026-01-01' } }, extra: '{"k":1}', set_null: null }))
        .to.deep.equal({ id: 'x', filters: { due: { gte: '2026-01-01' } }, extra: { k: 1 } });
    });

    it('openai: set_null naming an unknown field, or one also given a value, is left for the canonical check to refuse', () => {
      const { decoder } = toSchemaProfile('openai', update);
      const refused = compileSchema(update as JsonSchema);
      for (const setNull of [['name'], ['category_id']]) {
        const decoded = decodeArguments(decoder, { id: 'x', name: null, category_id: 'c', filters: null, extra: null, set_null: setNull });
        expect(decoded[SET_NULL_PROPERTY]).to.deep.equal(setNull);
        expect(refused(decoded)).to.equal(false);
      }
    });

    it('gemini: a union becomes one property per alternative and decodes back; null stays null where the canonical schema takes it', () => {
      const { decoder, schema } = toSchemaProfile('gemini', update);
      const due = (((schema as Obj).properties as Obj).filters as { properties: Obj }).properties.due as Obj;
      expect(Object.keys(due.properties as Obj)).to.deep.equal(['gte', 'value']);
      expect(decodeArguments(decoder, { id: 'x', filters: { due: { value: '2026-01-01' } } })).to.deep.equal({ id: 'x', filters: { due: '2026-01-01' } });
      expect(decodeArguments(decoder, { id: 'x', filters: { due: { gte: '2026-01-01' } } })).to.deep.equal({ id: 'x', filters: { due: { gte: '2026-01-01' } } });
      expect(decodeArguments(decoder, { id: 'x', name: null, category_id: null })).to.deep.equal({ id: 'x', category_id: null });
    });

    it('passes shapes it does not recognise on unchanged, and never throws', () => {
      for (const profile of PROFILES) {
        const { decoder } = toSchemaProfile(profile, update);
        for (const args of [{ id: 1, filters: 'x', extra: '{not json' }, { filters: { due: { value: 'a', gte: 'b' } } }, { unknown: { deep: [null] } }]) {
          const decoded = decodeArguments(decoder, args);
          expect(decoded).to.be.an('object');
          expect(compileSchema(update as JsonSchema)(decoded), JSON.stringify(decoded)).to.equal(false);
        }
      }
    });
  });

  describe('descriptions keep what a profile cannot say', () => {
    it('formats, lengths, limits and defaults left out of a profile are written into the description', () => {
      const schema: Obj = { type: 'object', properties: {
        id: { type: 'string', format: 'uuid', description: 'The id.' },
        code: { type: 'string', maxLength: 20, pattern: '^[A-Z]+$' },
        limit: { type: 'integer', minimum: 1, maximum: 100, default: 25, description: 'Page size.' },
        size: { type: 'integer', enum: [1, 2, 3] },
      }, additionalProperties: false };
      const gemini = (toSchemaProfile('gemini', schema).schema as { properties: Record<string, Obj> }).properties;
      expect(gemini.id!.description).to.equal('The id. Format: uuid.');
      expect(gemini.code!.description).to.equal('At most 20 characters. Pattern: ^[A-Z]+$.');
      expect(gemini.limit!.description).to.equal('Page size. Minimum 1. Maximum 100. Default: 25.');
      expect(gemini.size!.description).to.equal('One of: 1, 2, 3.');
      const openai = (toSchemaProfile('openai', schema).schema as { properties: Record<string, Obj> }).properties;
      expect(openai.id).to.deep.include({ format: 'uuid', description: 'The id.' });
      expect(openai.code).to.deep.include({ pattern: '^[A-Z]+$', description: 'At most 20 characters.' });
      expect(openai.limit).to.deep.include({ minimum: 1, maximum: 100, description: 'Page size. Default: 25.' });
    });

    it('a limit the description already states is not repeated', () => {
      const schema: Obj = { type: 'object', properties: { limit: { type: 'integer', minimum: 1, maximum: 100, default: 25, description: 'Page size, 1–100 (default 25).' } } };
      const limit = ((toSchemaProfile('gemini', schema).schema as Obj).properties as Obj).limit as Obj;
      expect(limit.description).to.equal('Page size, 1–100 (default 25).');
    });
  });

  it('a property that only admits null (legal in 3.1) is carried as JSON text that decodes to null', () => {
    const schema: Obj = { type: 'object', properties: { stock: { type: 'null', description: 'Reserved.' } }, required: ['stock'], additionalProperties: false };
    for (const profile of PROFILES) {
      const { schema: shown, decoder } = toSchemaProfile(profile, schema);
      const stock = (shown.properties as Obj).stock as Obj;
      expect(JSON.stringify(stock)).to.include('Always null');
      expect(decodeArguments(decoder, { stock: 'null' })).to.deep.equal({ stock: null });
    }
  });

  it('refuses what no profile can write: a recursive $ref, a union at the root', () => {
    const recursive: Obj = { type: 'object', properties: { node: { $ref: '#/$defs/node' } }, $defs: { node: { type: 'object', properties: { next: { $ref: '#/$defs/node' } } } } };
    const rootUnion: Obj = { anyOf: [{ type: 'object', properties: { a: { type: 'string' } } }, { type: 'object', properties: { b: { type: 'string' } } }] };
    for (const profile of PROFILES) {
      expect(() => toSchemaProfile(profile, recursive)).to.throw(SchemaProfileError, /recursive \$ref/);
      expect(() => toSchemaProfile(profile, rootUnion)).to.throw(SchemaProfileError, /union at the root/);
    }
  });
});
