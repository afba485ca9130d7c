import { generate } from './generate.js';
for (const f of process.argv.slice(2)) {
  for (const tc of [false, true, true]) {
    const c = process.cpuUsage(); await generate(f, { typeCheck: tc }); const u = process.cpuUsage(c);
    console.log(f, tc, Math.round((u.user + u.system) / 1000), 'ms cpu');
  }
}
