export {
  type Authenticated,
  authenticateKey,
  createKey,
  type KeyView,
  listKeys,
  revokeKey,
} from './keys.service.ts';
