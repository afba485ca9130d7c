// Preloaded into the generator's process by the corpus runs (`node --import <this> --import tsx
// codegen/cli.ts …`, test/codegen/corpus-run.ts): writes the process's own peak RSS and CPU time to
// the file named by KOBANA_RESOURCE_USAGE_FILE when it exits, measured by Node, not by the
// generator. Plain JavaScript so it needs no loader.
import { writeFileSync } from 'node:fs';

const file = process.env.KOBANA_RESOURCE_USAGE_FILE;
if (file) {
  process.on('exit', () => {
    const { maxRSS, userCPUTime, systemCPUTime } = process.resourceUsage();
    writeFileSync(file, JSON.stringify({ maxRssKb: maxRSS, cpuMicroseconds: userCPUTime + systemCPUTime }));
  });
}
