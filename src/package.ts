import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The directory holding hourbook's package.json: the checkout, or the installed package. Found by
 * walking up from this module, because it runs from `src/` (tsx), from a bundled chunk in `dist/`,
 * and from an installed tarball; files the runtime reads (db/migrations, package.json) sit there.
 */
function findPackageRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  while (!existsSync(join(dir, 'package.json'))) {
    const parent = dirname(dir);
    if (parent === dir) throw new Error(`no package.json above ${fileURLToPath(import.meta.url)}`);
    dir = parent;
  }
  return dir;
}

export const PACKAGE_ROOT = findPackageRoot();

let version: string | undefined;

/** The package's version, as `hourbook --version` prints it and backup manifests record it. */
export function packageVersion(): string {
  version ??= (JSON.parse(readFileSync(join(PACKAGE_ROOT, 'package.json'), 'utf8')) as { version: string }).version;
  return version;
}
