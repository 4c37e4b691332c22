import assert from 'node:assert/strict';

/** A timestamp written just now; returns it so whole-object comparisons can take it as it is. */
export function recentIso(value: string | null | undefined): string {
  assert.match(value ?? '', /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
  assert.ok(Math.abs(Date.now() - Date.parse(value ?? '')) < 300_000, `${value} is not recent`);
  return value ?? '';
}

export interface LabelOut {
  id: number;
  name: string;
  slug: string;
  plan: string;
  contract_signed: boolean;
  limit_overrides: Record<string, number | null>;
  commission_override: number | null;
  created_at: string;
}

export interface IssuedOut {
  key: string;
  prefix: string;
  scopes: string[];
  sandbox: boolean;
}

export interface KeyOut {
  prefix: string;
  scopes: string[];
  sandbox: boolean;
  allow_ips: string[] | null;
  created_at: string;
  revoked_at: string | null;
  last_used_at: string | null;
}
