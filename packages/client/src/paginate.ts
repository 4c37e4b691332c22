import type {
  ClientPathsWithMethod,
  Client as FetchClient,
  FetchResponse,
  MaybeOptionalInit,
} from 'openapi-fetch';
import { getUrl, type LabeldeskClient } from './client.ts';
import type { paths } from './schema.ts';

type GetPath = ClientPathsWithMethod<FetchClient<paths>, 'get'>;
type PageOf<P extends GetPath> = NonNullable<
  Extract<FetchResponse<paths[P]['get'], unknown, `${string}/${string}`>, { data: unknown }>['data']
>;

/** The paths whose GET answers a paged list: a body with `total` beside the items. */
export type PagedPath = { [P in GetPath]: PageOf<P> extends { total: number } ? P : never }[GetPath];

type ListKey<Body> = {
  [K in keyof Body]-?: NonNullable<Body[K]> extends readonly unknown[] ? K : never;
}[keyof Body];

/** An item of the list a paged path answers (`artists`, `releases`, `smart_links`, ...). */
export type ItemOf<P extends PagedPath> =
  NonNullable<PageOf<P>[ListKey<PageOf<P>>]> extends readonly (infer Item)[] ? Item : never;

/**
 * Every item of a paged list, page after page: the first page as `init` asks for it (its `per_page`,
 * filters and path parameters), then each page the answer's `Link: rel="next"` names, until none does.
 * The items are the body's one array field (`artists` of GET /api/v1/artists, ...). An `init.signal`
 * aborts the later pages' requests too.
 */
export async function* paginate<P extends PagedPath>(
  client: LabeldeskClient,
  path: P,
  ...init: PageInit<P>
): AsyncGenerator<ItemOf<P>, void, undefined> {
  const first = await (
    client.GET as (path: string, init?: unknown) => Promise<{ data: unknown; response: Response }>
  )(path, init[0]);
  let body = first.data;
  let response = first.response;
  for (;;) {
    yield* itemsOf(body) as ItemOf<P>[];
    const next = nextLink(response.headers.get('link'));
    if (next === null) return;
    const signal = init[0]?.signal;
    response = await getUrl(client, next, signal ? { signal } : {});
    body = await response.json();
  }
}

/** The first page's request, as `client.GET` takes it: required when the path has parameters. */
type PageInit<P extends PagedPath> =
  undefined extends MaybeOptionalInit<paths[P], 'get'>
    ? [init?: MaybeOptionalInit<paths[P], 'get'>]
    : [init: MaybeOptionalInit<paths[P], 'get'>];

function itemsOf(body: unknown): unknown[] {
  const lists = Object.values(body as Record<string, unknown>).filter(Array.isArray);
  if (lists.length !== 1) throw new TypeError(`a paged body has one list; this one has ${lists.length}`);
  return lists[0] as unknown[];
}

/** One `<address>; param; param` of a Link header (a quoted value may hold a comma). */
const LINK_VALUE = /<([^>]*)>((?:\s*;(?:[^;,"]|"[^"]*")*)*)/g;

/** The address of `rel="next"` in a Link header (RFC 8288), or null when there is none. */
export function nextLink(header: string | null): string | null {
  for (const [, url = '', params = ''] of (header ?? '').matchAll(LINK_VALUE)) {
    for (const param of params.split(';')) {
      const rel = /^\s*rel\s*=\s*(?:"([^"]*)"|(\S+))\s*$/i.exec(param);
      const values = (rel?.[1] ?? rel?.[2] ?? '').toLowerCase().split(/\s+/);
      if (values.includes('next')) return url;
    }
  }
  return null;
}
