import type { Role } from '../../db/values.ts';

/** Owners and administrators may do everything, including label administration and finance. */
const FULL_ACCESS = [
  'catalog.view',
  'catalog.edit',
  'releases.submit',
  'links.manage',
  'stats.view',
  'finance.view',
  'finance.withdraw',
  'members.manage',
  'settings.manage',
  'support.write',
  'label.admin',
] as const;

/** Team roles: each has a display title and a fixed permission set. */
export const ROLES = {
  owner: { title: 'Owner', permissions: FULL_ACCESS },
  admin: { title: 'Administrator', permissions: FULL_ACCESS },
  manager: {
    title: 'Manager',
    permissions: [
      'catalog.view',
      'catalog.edit',
      'releases.submit',
      'links.manage',
      'stats.view',
      'members.manage',
      'support.write',
    ],
  },
  editor: {
    title: 'Editor',
    permissions: ['catalog.view', 'catalog.edit', 'links.manage', 'stats.view'],
  },
  accountant: {
    title: 'Accountant',
    permissions: ['catalog.view', 'stats.view', 'finance.view', 'finance.withdraw'],
  },
  viewer: {
    title: 'Viewer',
    permissions: ['catalog.view', 'stats.view'],
  },
} as const satisfies Record<Role, { title: string; permissions: readonly string[] }>;

export function isRole(value: string): value is Role {
  return Object.hasOwn(ROLES, value);
}

export type Permission = (typeof FULL_ACCESS)[number];

export function roleAllows(role: Role, permission: Permission): boolean {
  const permissions: readonly string[] = ROLES[role].permissions;
  return permissions.includes(permission);
}
