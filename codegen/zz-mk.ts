import { writeFileSync } from 'node:fs';
import { stringify } from 'yaml';
const { buildSyntheticSpec } = await import('../bench/codegen.ts');
writeFileSync('/tmp/cg/synth.yaml', stringify(buildSyntheticSpec(2000)));
