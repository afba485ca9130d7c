/**
 * The project folder (the one holding this package's `package.json`), found from this module's
 * own location so it is the same under `tsx` (`src/`) and in the build (`dist/src/`), whatever
 * the working folder. The server and `npm run token` resolve a relative `DATA_DIR` against it,
 * so both find the same data from any folder.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

function findPackageRoot(start: string): string {
  for (let dir = start; ; dir = path.dirname(dir)) {
    if (existsSync(path.join(dir, 'package.json'))) return dir;
    if (path.dirname(dir) === dir) throw new Error('package.json not found above the server code');
  }
}

export const PACKAGE_ROOT = findPackageRoot(path.dirname(fileURLToPath(import.meta.url)));
