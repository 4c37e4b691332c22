export { type Authenticated, authenticateKey, createKey, listKeys, revokeKey } from './keys.service.ts';
