import { hash } from 'node:crypto';
import { isoNow } from '../../clock.ts';
import type { AppContext } from '../../context.ts';
import type { LabelRow } from '../../core/labels.ts';
import { readJson } from '../../db/json-column.ts';
import { keySubject, labelSubject, readCache } from '../../db/read-cache.ts';
import type { Workspace } from '../../db/scope.ts';
import { errors } from '../../errors.ts';
import { parseAllowEntry } from '../../lib/ip-allow-list.ts';
import type { MaybePromise } from '../../lib/maybe-promise.ts';
import { randomBase62 } from '../../lib/random.ts';
import { ensureSandboxWorkspace, getLabel } from '../labels/index.ts';
import { enforceLimit, isScope, SCOPES, type Scope, type Terms, termsOf } from '../plans/index.ts';
import {
  type ApiKeyRow,
  findKeysByPrefix,
  findUnrevokedKeyByHash,
  insertKey,
  listKeysOfLabel,
  markKeyRevoked,
  prefixTaken,
  recordKeyUse,
} from './keys.store.ts';

const LIVE_PREFIX = 'svc_';
const SANDBOX_PREFIX = 'svc_test_';
const SECRET_LENGTH = 40;
/** Random characters kept in the stored prefix, after `svc_` or `svc_test_`. */
const PREFIX_RANDOM_CHARS = 8;
const KEY_PATTERN = /^svc_(?:test_)?[A-Za-z0-9]{32,}$/;

export interface KeyView {
  prefix: string;
  scopes: Scope[];
  sandbox: boolean;
  allow_ips: string[] | null;
  created_at: string;
  revoked_at: string | null;
  /** To the minute: a use is recorded at most once a minute per key and process. */
  last_used_at: string | null;
}

export interface IssuedKey extends KeyView {
  /** The full key: shown once, never stored. */
  key: string;
}

export interface Authenticated {
  key: ApiKeyRow & { grantedScopes: readonly Scope[]; allowIps: readonly string[] | null };
  label: LabelRow;
  workspace: Workspace;
  terms: Terms;
  /** Granted scopes the label's plan lets this key use now. */
  effectiveScopes: readonly Scope[];
}

export function hashKey(key: string): string {
  return hash('sha256', key, 'hex');
}

function parseScopes(stored: ApiKeyRow['scopes']): Scope[] {
  return readJson(stored).filter(isScope);
}

function parseAllowIps(stored: ApiKeyRow['allow_ips']): string[] | null {
  return stored === null ? null : readJson(stored);
}

export function presentKey(row: ApiKeyRow): KeyView {
  return {
    prefix: row.prefix,
    scopes: parseScopes(row.scopes),
    sandbox: row.sandbox === 1,
    allow_ips: parseAllowIps(row.allow_ips),
    created_at: row.created_at,
    revoked_at: row.revoked_at,
    last_used_at: row.last_used_at,
  };
}

/** `all`, or a list of the ten scope names. */
export function resolveScopes(requested: readonly string[]): Scope[] {
  const names = requested.map((s) => s.trim()).filter(Boolean);
  if (names.length === 1 && names[0] === 'all') return [...SCOPES];
  if (names.length === 0) throw errors.invalid('scopes', 'at least one scope, or "all", is required');
  const unknown = names.filter((name) => !isScope(name));
  if (unknown.length > 0) {
    throw errors.invalid(
      'scopes',
      `unknown scope ${unknown.join(', ')}; scopes are ${SCOPES.join(', ')} or all`,
    );
  }
  return SCOPES.filter((scope) => names.includes(scope));
}

/** The entries, checked; null (any address) when none is given, as blanks are not entries. */
function checkAllowList(entries: readonly string[]): string[] | null {
  const cleaned = entries.map((e) => e.trim()).filter(Boolean);
  if (cleaned.length === 0) return null;
  for (const entry of cleaned) {
    try {
      parseAllowEntry(entry);
    } catch {
      throw errors.invalid('allow_ip', `"${entry}" is not an IPv4 address, IPv6 address or CIDR range`);
    }
  }
  return cleaned;
}

async function newKeyMaterial(ctx: AppContext, sandbox: boolean): Promise<{ key: string; prefix: string }> {
  const start = sandbox ? SANDBOX_PREFIX : LIVE_PREFIX;
  for (;;) {
    const key = start + randomBase62(SECRET_LENGTH);
    const prefix = key.slice(0, start.length + PREFIX_RANDOM_CHARS);
    if (!(await prefixTaken(ctx.db, prefix))) return { key, prefix };
  }
}

export async function createKey(
  ctx: AppContext,
  input: { labelId: number; scopes: readonly string[]; sandbox?: boolean; allowIps?: readonly string[] },
): Promise<IssuedKey> {
  const label = await getLabel(ctx, input.labelId);
  const scopes = resolveScopes(input.scopes);
  const allowIps = input.allowIps ? checkAllowList(input.allowIps) : null;
  const sandbox = input.sandbox === true;
  if (sandbox) await ensureSandboxWorkspace(ctx, label);
  else await enforceLimit(ctx.db, label, 'api_keys');
  const { key, prefix } = await newKeyMaterial(ctx, sandbox);
  const row = await insertKey(ctx.db, {
    label_id: label.id,
    prefix,
    key_hash: hashKey(key),
    scopes: JSON.stringify(scopes),
    sandbox: sandbox ? 1 : 0,
    allow_ips: allowIps ? JSON.stringify(allowIps) : null,
    created_at: isoNow(ctx.clock),
    revoked_at: null,
  });
  return { key, ...presentKey(row) };
}

export async function listKeys(ctx: AppContext, labelId: number): Promise<KeyView[]> {
  const label = await getLabel(ctx, labelId);
  return (await listKeysOfLabel(ctx.db, label.id)).map(presentKey);
}

/** Revokes the key with `prefix`; with `labelId`, a key of another label is not found. */
export async function revokeKey(
  ctx: AppContext,
  prefix: string,
  owner: { labelId?: number } = {},
): Promise<KeyView> {
  const matches = await findKeysByPrefix(ctx.db, prefix.trim());
  const [match] = matches;
  if (!match || matches.length > 1) throw errors.notFound('Key');
  if (owner.labelId !== undefined && match.label_id !== owner.labelId) throw errors.notFound('Key');
  if (match.revoked_at !== null) return presentKey(match);
  return presentKey(await markKeyRevoked(ctx.db, match.id, isoNow(ctx.clock)));
}

const authenticatedKeys = readCache<Authenticated | null>('key');

/**
 * What a caller's kept value depends on: the key, its label and the label's sandbox. An unknown or
 * revoked key is not kept: it would depend on no version, and guessed keys would fill the cache.
 */
function subjectsOfCaller(found: Authenticated | null): string[] | null {
  if (!found) return null;
  return [keySubject(found.key.id), labelSubject(found.label.id), labelSubject(found.workspace.id)];
}

/**
 * The key, its label and workspace, or null for a malformed, unknown or revoked key. A use of the
 * key is recorded on the way.
 */
export function authenticateKey(ctx: AppContext, presented: string): MaybePromise<Authenticated | null> {
  if (!KEY_PATTERN.test(presented)) return null;
  const keyHash = hashKey(presented);
  const found = authenticatedKeys(ctx.db, keyHash, () => loadAuthenticated(ctx, keyHash), subjectsOfCaller);
  if (found instanceof Promise) return found.then((loaded) => loaded && noteKeyUse(ctx, loaded));
  return found && noteKeyUse(ctx, found);
}

const KEY_USE_EVERY_MS = 60_000;
/**
 * When this process last recorded each key's use, by key hash (unique across databases, which tests
 * and installations sharing a process do not share ids across). Bounded by the number of keys.
 */
const keyUseRecorded = new Map<string, number>();

/**
 * Records the key's use when this process has not in the last minute: one write a minute per key
 * and process, awaited so the console shows it as soon as the request is answered.
 */
function noteKeyUse(ctx: AppContext, caller: Authenticated): MaybePromise<Authenticated> {
  const nowMs = ctx.clock.now().getTime();
  const recorded = keyUseRecorded.get(caller.key.key_hash);
  if (recorded !== undefined && nowMs - recorded < KEY_USE_EVERY_MS) return caller;
  keyUseRecorded.set(caller.key.key_hash, nowMs);
  const at = new Date(nowMs);
  const since = new Date(nowMs - KEY_USE_EVERY_MS).toISOString();
  return recordKeyUse(ctx.db, caller.key.id, at.toISOString(), since).then(() => caller);
}

async function loadAuthenticated(ctx: AppContext, keyHash: string): Promise<Authenticated | null> {
  const found = await findUnrevokedKeyByHash(ctx.db, keyHash);
  if (!found) return null;
  const sandbox = found.key.sandbox === 1;
  const workspaceId = sandbox ? found.sandboxWorkspaceId : found.label.id;
  if (workspaceId === null) return null;
  const grantedScopes = Object.freeze(parseScopes(found.key.scopes));
  const terms = termsOf(found.label);
  // Every request of this key shares the object until its key or label changes: nobody may alter it.
  return Object.freeze({
    key: Object.freeze({ ...found.key, grantedScopes, allowIps: parseAllowIps(found.key.allow_ips) }),
    label: Object.freeze(found.label),
    workspace: Object.freeze({
      id: workspaceId,
      labelId: found.label.id,
      sandbox,
      catalogCopied: !sandbox || found.sandboxCopied,
    }),
    terms: Object.freeze({ ...terms, limits: Object.freeze(terms.limits) }),
    effectiveScopes: Object.freeze(grantedScopes.filter((scope) => terms.plan.scopes.includes(scope))),
  });
}
