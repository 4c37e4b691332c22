import type { Config } from '../../config.ts';
import type { Db } from '../../db/database.ts';
import { errors } from '../../errors.ts';
import { randomBase62 } from '../../lib/random.ts';
import { codeTaken, type SmartLinkRow } from './smart-links.store.ts';

/**
 * A link's address: the random code every link gets, or the slug a label may choose instead; the
 * public page is found under either.
 */

/** The public page of a link. */
export function smartLinkUrl(
  config: Pick<Config, 'shortLinkBase'>,
  link: Pick<SmartLinkRow, 'slug' | 'code'>,
) {
  return `${config.shortLinkBase}/${link.slug ?? link.code}`;
}

/**
 * Words a slug may not be: paths of the page itself, of the service, and names a fan would take
 * for the service's own pages.
 */
const RESERVED_SLUGS = new Set([
  'admin',
  'api',
  'app',
  'assets',
  'dashboard',
  'docs',
  'favicon-ico',
  'go',
  'help',
  'labeldesk',
  'login',
  'media',
  'new',
  'presave',
  'robots-txt',
  'settings',
  'static',
  'status',
  'support',
  'www',
]);

export function checkSlug(slug: string): string {
  if (slug.startsWith('-') || slug.endsWith('-')) {
    throw errors.invalid('slug', 'slug must not start or end with a hyphen');
  }
  if (RESERVED_SLUGS.has(slug)) throw errors.invalid('slug', `"${slug}" is reserved; choose another slug`);
  return slug;
}

export function slugConflict() {
  return errors.conflict('This slug is taken; choose another', { field: 'slug' });
}

const CODE_LENGTH = 7;

/** A new random code; it always has a capital letter, so no slug (lowercase) can ever equal it. */
function newCode(): string {
  for (;;) {
    const code = randomBase62(CODE_LENGTH);
    if (/[A-Z]/.test(code)) return code;
  }
}

/** A code no link has: 62^7 codes make a clash rare, and the unique index still guards the insert. */
export async function freshCode(db: Db): Promise<string> {
  for (;;) {
    const code = newCode();
    if (!(await codeTaken(db, code))) return code;
  }
}
