#!/usr/bin/env node
// The `recalls` command. Runs the TypeScript sources through tsx's loader so that the checkout
// needs no build step; `npm run build` still emits dist/ for deployments that prefer plain JS.
import { register } from 'tsx/esm/api';

register();
const { main } = await import('../src/cli/main.ts');
await main(process.argv);
