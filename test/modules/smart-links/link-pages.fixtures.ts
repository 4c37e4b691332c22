import assert from 'node:assert/strict';
import { call, type Harness, json } from '../../helpers/harness.ts';

export const IPHONE =
  'Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1';
export const SPOTIFY_URL = 'https://open.spotify.com/album/4aawyAB9vmqN3uQ7FjRGTy';

export interface Link {
  id: number;
  code: string;
  url: string;
  presaves: number;
  views: number;
  clicks: number;
  targets: { platform: string; clicks: number }[];
}

export async function givenLink(h: Harness, key: string, body: Record<string, unknown> = {}): Promise<Link> {
  const response = await call(h, 'POST', '/api/v1/smart-links', {
    key,
    payload: {
      title: 'Night Drive',
      artist_name: 'Mira Vale',
      release_date: '2026-02-20',
      targets: [
        { platform: 'spotify', url: SPOTIFY_URL },
        { platform: 'apple_music', url: 'https://music.apple.com/album/1440857781' },
      ],
      ...body,
    },
  });
  assert.equal(response.statusCode, 201, response.body);
  return (json(response) as { smart_link: Link }).smart_link;
}

export function open(
  h: Harness,
  path: string,
  headers: Record<string, string> = {},
  method: 'GET' | 'HEAD' = 'GET',
) {
  return call(h, method, path, { headers: { 'user-agent': IPHONE, ...headers } });
}

export async function stats(h: Harness, key: string, id: number) {
  const response = await call(h, 'GET', `/api/v1/smart-links/${id}/stats`, { key });
  assert.equal(response.statusCode, 200, response.body);
  return json(response) as Record<string, unknown> & { totals: Record<string, number> };
}
