import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { TestContext } from 'node:test';
import type { LightMyRequestResponse } from 'fastify';
import { type FormEntry, multipart } from './audio.ts';
import { givenRelease } from './catalog.ts';
import { buildHarness, call, givenCaller, type Harness, json } from './harness.ts';

export interface TrackCard {
  id: number;
  release_id: number;
  number: number;
  title: string;
  isrc: string | null;
  language: string | null;
  preview_start_sec: number | null;
  writers: Array<{ name: string; roles: string[] }>;
  contributors: Array<{ name: string; role: string }>;
  ai: { service: string; elements: string[] } | null;
  audio: {
    filename: string;
    bytes: number;
    duration_sec: number;
    sample_rate: number;
    bit_depth: number | null;
    channels: number;
  } | null;
  updated_at: string;
}

export interface ErrorReply {
  code: string;
  field?: string;
  required_scope?: string;
}

export function sha256(buffer: Buffer): string {
  return createHash('sha256').update(buffer).digest('hex');
}

export async function filesUnder(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true }).catch(() => []);
  return entries.filter((entry) => entry.isFile()).map((entry) => join(entry.parentPath, entry.name));
}

/** Nothing half-written stays behind, and only the expected audio files are stored. */
export async function assertStored(h: Harness, audioFiles: number): Promise<void> {
  assert.deepEqual(await filesUnder(join(h.dataDir, 'media', 'tmp')), [], 'media/tmp is empty');
  assert.equal(
    (await filesUnder(join(h.dataDir, 'media', 'audio'))).length,
    audioFiles,
    'stored audio files',
  );
}

export async function setup(t: TestContext, release: Parameters<typeof givenRelease>[2] = { type: 'album' }) {
  const h = await buildHarness(t);
  const { label, key } = await givenCaller(h);
  const { id: releaseId, artist_id: artistId } = await givenRelease(h, label.id, release);
  return { h, label, key, releaseId, artistId };
}

export function postTrack(h: Harness, key: string, releaseId: number, entries: FormEntry[]) {
  return call(h, 'POST', `/api/v1/releases/${releaseId}/tracks`, { key, ...multipart(entries) });
}

export async function createdTrack(
  h: Harness,
  key: string,
  releaseId: number,
  entries: FormEntry[],
): Promise<TrackCard> {
  const response = await postTrack(h, key, releaseId, entries);
  assert.equal(response.statusCode, 201, response.body);
  return (json(response) as { track: TrackCard }).track;
}

export function assertInvalid(response: LightMyRequestResponse, field: string): void {
  assert.equal(response.statusCode, 400, response.body);
  assert.deepEqual(
    { code: (json(response) as ErrorReply).code, field: (json(response) as ErrorReply).field },
    {
      code: 'invalid',
      field,
    },
  );
}

export async function releaseUpdatedAt(h: Harness, releaseId: number): Promise<string> {
  const row = await h.ctx.db
    .selectFrom('releases')
    .select('updated_at')
    .where('id', '=', releaseId)
    .executeTakeFirstOrThrow();
  return row.updated_at;
}
