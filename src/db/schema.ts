import type { Generated } from 'kysely';

/**
 * The Database type: one interface per table. Timestamps are ISO-8601 text and booleans are
 * integers 0/1 on both engines, so rows read the same from SQLite and PostgreSQL.
 */
export interface LabelsTable {
  id: Generated<number>;
  name: string;
  slug: string;
  plan: string;
  contract_signed: number;
  /** JSON object of limit name to number (or null for unlimited): Enterprise agreements. */
  limit_overrides: string;
  commission_override: number | null;
  /** Set on a sandbox workspace: the id of the label it belongs to. */
  parent_id: number | null;
  created_at: string;
}

export interface ApiKeysTable {
  id: Generated<number>;
  label_id: number;
  prefix: string;
  key_hash: string;
  /** JSON array of scope names (`all` is stored as the ten names). */
  scopes: string;
  sandbox: number;
  /** JSON array of addresses and CIDR ranges; null means any address. */
  allow_ips: string | null;
  created_at: string;
  revoked_at: string | null;
}

export interface MembersTable {
  id: Generated<number>;
  label_id: number;
  login: string;
  name: string;
  email: string | null;
  role: string;
  joined_at: string;
  last_seen_at: string | null;
}

export interface IdempotencyKeysTable {
  api_key_id: number;
  idempotency_key: string;
  request_hash: string;
  /** `running` until the response is stored, then `done`. */
  state: string;
  status_code: number | null;
  headers: string | null;
  body: string | null;
  created_at: string;
}

export interface ServiceMarksTable {
  name: string;
  at: string;
}

export interface Database {
  labels: LabelsTable;
  api_keys: ApiKeysTable;
  members: MembersTable;
  idempotency_keys: IdempotencyKeysTable;
  service_marks: ServiceMarksTable;
}
