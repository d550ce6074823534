#!/usr/bin/env node
// The package's bin: registers tsx's loader in this process and runs the TypeScript entry, so
// `npx hourbook ...` works from a checkout and signals reach the server directly.
import { register } from 'tsx/esm/api';

register();
await import('../src/main.ts');
