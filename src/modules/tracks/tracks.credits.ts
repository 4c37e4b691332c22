import type { Static, TSchema } from 'typebox';
import { errors } from '../../errors.ts';
import type { SchemaCheck } from '../../http/validation.ts';
import { searchKey } from '../../lib/text.ts';
import { CONTRIBUTOR_ROLES, type ContributorRole, type RoleKind } from '../lookups/index.ts';
import type { ContributorsInput, FeaturedInput, WritersInput } from './tracks.schemas.ts';

export interface Writer {
  name: string;
  roles: string[];
}

export interface Contributor {
  name: string;
  role: string;
}

export interface Featured {
  name: string;
}

function roleKey(name: string): string {
  return searchKey(name.trim().replace(/\s+/g, ' '));
}

/** Every name a role goes by (canonical and local, compared case-insensitively) to the role. */
const ROLES_BY_NAME = new Map<string, ContributorRole>(
  CONTRIBUTOR_ROLES.flatMap((role) => [role.name, ...role.local_names].map((name) => [roleKey(name), role])),
);

const ROLE_NAMES_OF: Record<RoleKind, string> = {
  writer: CONTRIBUTOR_ROLES.filter((role) => role.kind === 'writer')
    .map((role) => role.name)
    .join(', '),
  contributor: 'the contributor roles',
};

/** The canonical name of a role given by any of its names; unknown roles and roles of the other kind are 400s. */
function canonicalRole(field: string, kind: RoleKind, given: string, index: number): string {
  const role = ROLES_BY_NAME.get(roleKey(given));
  if (!role) {
    throw errors.invalid(
      field,
      `${field}[${index}]: "${given}" is not a known role; the roles are listed by GET /api/v1/lookups/contributor-roles`,
    );
  }
  if (role.kind !== kind) {
    throw errors.invalid(
      field,
      `${field}[${index}]: ${role.name} is a ${role.kind} role; ${field} take ${ROLE_NAMES_OF[kind]}`,
    );
  }
  return role.name;
}

function creditName(field: string, name: string, index: number): string {
  const trimmed = name.trim();
  if (trimmed === '') throw errors.invalid(field, `${field}[${index}]: name must not be empty`);
  return trimmed;
}

/** Parses a multipart text field that carries JSON. */
export function parseJsonField(field: string, text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    throw errors.invalid(field, `${field} must be JSON text`);
  }
}

/**
 * A credit list sent as JSON text in a multipart field, checked against the schema the JSON routes
 * take (an empty field is an empty list, as HTML forms send untouched fields).
 */
export function formCredits<S extends TSchema>(
  field: string,
  text: string,
  check: SchemaCheck,
  schema: S,
  shape: string,
): Static<S> {
  const value = text.trim() === '' ? [] : parseJsonField(field, text);
  if (!check(schema, value)) throw errors.invalid(field, `${field} must be a JSON array of ${shape}`);
  return value;
}

export function normalizeWriters(value: Static<typeof WritersInput>): Writer[] {
  return value.map((writer, index) => ({
    name: creditName('writers', writer.name, index),
    roles: [...new Set(writer.roles.map((role) => canonicalRole('writers', 'writer', role, index)))],
  }));
}

export function normalizeContributors(value: Static<typeof ContributorsInput>): Contributor[] {
  return value.map((contributor, index) => ({
    name: creditName('contributors', contributor.name, index),
    role: canonicalRole('contributors', 'contributor', contributor.role, index),
  }));
}

export function normalizeFeatured(value: Static<typeof FeaturedInput>): Featured[] {
  return value.map((artist, index) => ({
    name: creditName('featured', artist.name, index),
  }));
}
