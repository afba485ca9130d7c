import { ts } from 'ts-morph';
import { readFileSync, readdirSync } from 'node:fs';
const dir = '/tmp/cg/out1/tools/';
const texts = readdirSync(dir).map((f) => readFileSync(dir + f, 'utf8'));
const all: string[] = []; for (let i = 0; i < 200; i++) all.push(...texts);
let t = performance.now();
const files = new Map<string, string>();
all.forEach((x, i) => files.set(`/f${i}.ts`, x));
const host: ts.LanguageServiceHost = {
  getCompilationSettings: () => ({}), getScriptFileNames: () => [], getScriptVersion: () => '1',
  getScriptSnapshot: (n) => { const x = files.get(n); return x === undefined ? undefined : ts.ScriptSnapshot.fromString(x); },
  getCurrentDirectory: () => '/', getDefaultLibFileName: () => 'lib.d.ts', fileExists: (n) => files.has(n), readFile: (n) => files.get(n),
};
const ls = ts.createLanguageService(host, ts.createDocumentRegistry(), ts.LanguageServiceMode.Syntactic);
let n = 0;
for (const name of files.keys()) n += ls.getFormattingEditsForDocument(name, { ...ts.getDefaultFormatCodeSettings('\n'), indentSize: 2, tabSize: 2, convertTabsToSpaces: true }).length;
console.log(all.length, 'files', Math.round(performance.now() - t), 'ms edits', n);
