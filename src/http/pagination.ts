import type { FastifyReply, FastifyRequest } from 'fastify';
import { Type } from 'typebox';

export const DEFAULT_PER_PAGE = 20;
export const MAX_PER_PAGE = 100;
/** Far past any list's end, and small enough that page × per_page stays an exact integer offset. */
export const MAX_PAGE = 1_000_000;

/** Query parameters of every paged list. `per_page` over 100 is clamped, not refused. */
export const PageQuery = Type.Object({
  page: Type.Optional(
    Type.Integer({ minimum: 1, maximum: MAX_PAGE, default: 1, description: 'Page number, from 1' }),
  ),
  per_page: Type.Optional(
    Type.Integer({
      minimum: 1,
      default: DEFAULT_PER_PAGE,
      description: `Items per page; at most ${MAX_PER_PAGE}`,
    }),
  ),
});

export const PageFields = {
  page: Type.Integer({ minimum: 1 }),
  per_page: Type.Integer({ minimum: 1, maximum: MAX_PER_PAGE }),
  total: Type.Integer({ minimum: 0 }),
};

export interface PageRequest {
  page: number;
  perPage: number;
  limit: number;
  offset: number;
}

export function pageOf(query: { page?: number; per_page?: number }): PageRequest {
  const page = query.page ?? 1;
  const perPage = Math.min(query.per_page ?? DEFAULT_PER_PAGE, MAX_PER_PAGE);
  return { page, perPage, limit: perPage, offset: (page - 1) * perPage };
}

function pageUrl(baseUrl: string, request: FastifyRequest, page: number, perPage: number): string {
  const url = new URL(request.url, baseUrl);
  const query = new URLSearchParams({ page: String(page), per_page: String(perPage) });
  for (const [name, value] of url.searchParams) {
    if (name !== 'page' && name !== 'per_page') query.append(name, value);
  }
  return `${baseUrl}${url.pathname}?${query}`;
}

/**
 * Sets `X-Total-Count` and `Link` (absolute `next`, `prev`, `last`, other query parameters kept)
 * and returns the paging fields of the body.
 */
export function pageResponse(
  request: FastifyRequest,
  reply: FastifyReply,
  baseUrl: string,
  page: PageRequest,
  total: number,
): { page: number; per_page: number; total: number } {
  const last = Math.max(1, Math.ceil(total / page.perPage));
  const links: string[] = [];
  const link = (target: number, rel: string) =>
    links.push(`<${pageUrl(baseUrl, request, target, page.perPage)}>; rel="${rel}"`);
  if (page.page < last) link(page.page + 1, 'next');
  if (page.page > 1) link(Math.min(page.page - 1, last), 'prev');
  link(last, 'last');
  reply.header('x-total-count', total);
  reply.header('link', links.join(', '));
  return { page: page.page, per_page: page.perPage, total };
}
