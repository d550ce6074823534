// `npm ci` runs this: it builds the web app, so `npm ci && npm run demo` serves it with no further
// step. An install without dev dependencies (a production image that brings its own dist/web)
// has no Vite; it says so in one line and leaves the build to whoever made dist/web.
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';

try {
  createRequire(import.meta.url).resolve('vite/package.json');
} catch {
  console.log('hourbook: vite is not installed (dev dependencies omitted); skipping the web app build');
  process.exit(0);
}
const result = spawnSync('npm', ['run', 'build:web'], { stdio: 'inherit', shell: process.platform === 'win32' });
process.exit(result.status ?? 1);
