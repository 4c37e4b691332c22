#!/usr/bin/env node
// The operator command. TypeScript sources run through tsx, so a checkout works right after `npm install`.
import { register } from 'tsx/esm/api';

register();
const { main } = await import('../src/main.ts');
await main(process.argv);
