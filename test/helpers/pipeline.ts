import assert from 'node:assert/strict';
import sharp from 'sharp';
import { type FormEntry, multipart, type PcmShape, pcmWav, STEREO_CD } from './audio.ts';
import { call, type Harness, json } from './harness.ts';

/**
 * A WAV of white noise: sound across the whole band, as a real master has (a pure tone would look
 * like a lossy source to the moderation's spectral check). Seeded, so every run uploads the same
 * bytes unless `seed` differs.
 */
export function noiseWav(shape: PcmShape = STEREO_CD, seed = 1): Buffer {
  const amplitude = 2 ** (shape.bitDepth - 1) * 0.4;
  let state = seed >>> 0 || 1;
  const samples = Array.from({ length: Math.round(shape.sampleRate * shape.seconds) }, () => {
    // xorshift32: cheap, repeatable noise.
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    state >>>= 0;
    return Math.round(((state / 2 ** 32) * 2 - 1) * amplitude);
  });
  return pcmWav(shape, samples);
}

export async function coverPng(size = 1400): Promise<Buffer> {
  return sharp({ create: { width: size, height: size, channels: 3, background: { r: 20, g: 90, b: 160 } } })
    .png()
    .toBuffer();
}

/** What a request answered: the harness's `inject` response, or one over a real socket. */
export interface ApiAnswer {
  statusCode: number;
  body: string;
}

/**
 * One API request with a key: the harness's in-process one by default; a test of running processes
 * passes one that goes over the network.
 */
export type ApiRequest = (
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE',
  url: string,
  options: { key: string; payload?: string | Buffer | object; headers?: Record<string, string> },
) => Promise<ApiAnswer>;

function requestOf(target: Pick<Harness, 'app'> | ApiRequest): ApiRequest {
  return typeof target === 'function' ? target : (method, url, options) => call(target, method, url, options);
}

async function expectStatus(response: ApiAnswer, status: number, what: string): Promise<unknown> {
  if (response.statusCode !== status) throw new Error(`${what}: ${response.statusCode} ${response.body}`);
  return JSON.parse(response.body);
}

export interface DraftInput {
  title?: string;
  type?: 'single' | 'ep' | 'album';
  featuredArtists?: string[];
  tracks?: Array<{ title: string; audio?: Buffer; contributors?: Array<{ name: string; role: string }> }>;
  cover?: boolean;
}

/**
 * A draft made the way a label's server makes one, through HTTP: artist, release, cover, tracks
 * with audio and a contributor each. Ready to submit unless the input leaves something out.
 */
export async function givenDraft(
  target: Pick<Harness, 'app'> | ApiRequest,
  key: string,
  input: DraftInput = {},
): Promise<{ releaseId: number; artistId: number; trackIds: number[] }> {
  const request = requestOf(target);
  const artist = (await expectStatus(
    await request('POST', '/api/v1/artists', { key, payload: { name: `Mira Vale ${Math.random()}` } }),
    201,
    'artist',
  )) as { artist: { id: number } };
  const release = (await expectStatus(
    await request('POST', '/api/v1/releases', {
      key,
      payload: {
        artist_id: artist.artist.id,
        type: input.type ?? 'ep',
        title: input.title ?? 'Night Drive',
        genre: 'Pop',
        release_date: '2027-03-01',
        ...(input.featuredArtists && { featured_artists: input.featuredArtists.map((name) => ({ name })) }),
      },
    }),
    201,
    'release',
  )) as { release: { id: number } };
  const releaseId = release.release.id;
  if (input.cover !== false) {
    await expectStatus(
      await request('PUT', `/api/v1/releases/${releaseId}/cover`, {
        key,
        payload: await coverPng(),
        headers: { 'content-type': 'image/png' },
      }),
      200,
      'cover',
    );
  }
  const tracks = input.tracks ?? [
    { title: 'Night Drive', audio: noiseWav(STEREO_CD, 1) },
    { title: 'Coastline', audio: noiseWav(STEREO_CD, 2) },
  ];
  const trackIds: number[] = [];
  for (const track of tracks) {
    const entries: FormEntry[] = [
      ['title', track.title],
      ['contributors', JSON.stringify(track.contributors ?? [{ name: 'Ari Lund', role: 'Producer' }])],
    ];
    if (track.audio) {
      entries.push({ filename: `${track.title}.wav`, contentType: 'audio/wav', content: track.audio });
    }
    const created = (await expectStatus(
      await request('POST', `/api/v1/releases/${releaseId}/tracks`, { key, ...multipart(entries) }),
      201,
      'track',
    )) as { track: { id: number } };
    trackIds.push(created.track.id);
  }
  return { releaseId, artistId: artist.artist.id, trackIds };
}

interface FeedEvent {
  id: number;
  event: string;
  created_at: string;
  data: Record<string, unknown>;
}

export async function feed(h: Harness, key: string): Promise<FeedEvent[]> {
  const response = await call(h, 'GET', '/api/v1/events?limit=200', { key });
  assert.equal(response.statusCode, 200, response.body);
  return (json(response) as { events: FeedEvent[] }).events;
}

export async function card(h: Harness, key: string, id: number) {
  const response = await call(h, 'GET', `/api/v1/releases/${id}`, { key });
  assert.equal(response.statusCode, 200, response.body);
  return (json(response) as { release: Record<string, unknown> & { tracks: Array<Record<string, unknown>> } })
    .release;
}

export function submit(
  h: Harness,
  key: string,
  id: number,
  payload: Record<string, unknown> = { confirm_rights: true },
) {
  return call(h, 'POST', `/api/v1/releases/${id}/submit`, { key, payload });
}
