import assert from 'node:assert/strict';
import { call, type Harness, json } from '../../helpers/harness.ts';

export const CREATED_AT = '2026-03-02T10:00:00.000Z';
export const SPOTIFY = { platform: 'spotify', url: 'https://open.spotify.com/album/4aawyAB9vmqN3uQ7FjRGTy' };
export const APPLE = { platform: 'apple_music', url: 'https://music.apple.com/album/night-drive/1440857781' };
export const DEEZER = { platform: 'deezer', url: 'https://www.deezer.com/album/302127' };

export interface LinkView {
  id: number;
  code: string;
  url: string;
  targets: { id: number; platform: string; url: string; clicks: number }[];
  [field: string]: unknown;
}

export const NEW_LINK = {
  title: 'Night Drive',
  artist_name: 'Mira Vale',
  release_date: '2026-05-01',
  targets: [SPOTIFY, APPLE],
};

export async function createLink(
  h: Harness,
  key: string,
  body: Record<string, unknown> = NEW_LINK,
): Promise<LinkView> {
  const response = await call(h, 'POST', '/api/v1/smart-links', { key, payload: body });
  assert.equal(response.statusCode, 201, response.body);
  return (json(response) as { smart_link: LinkView }).smart_link;
}
