import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { test } from 'node:test';
import sharp from 'sharp';
import { keepUpload } from '../../src/modules/media/media.cleanup.ts';
import { receiveToTemp } from '../../src/modules/media/media.storage.ts';
import { givenArtist, givenRelease } from '../helpers/catalog.ts';
import { buildHarness, call, givenCaller, type Harness, json } from '../helpers/harness.ts';
import { get, newInstallation, startServer } from '../helpers/installation.ts';
import { mediaPath, mediaRoot } from '../helpers/media.ts';

const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

function cover(width = 1400): Promise<Buffer> {
  return sharp({ create: { width, height: width, channels: 3, background: { r: 20, g: 90, b: 160 } } })
    .jpeg()
    .toBuffer();
}

async function withCover(h: Harness, key: string, releaseId: number, bytes: Buffer): Promise<void> {
  const put = await call(h, 'PUT', `/api/v1/releases/${releaseId}/cover`, {
    key,
    headers: { 'content-type': 'image/jpeg' },
    payload: bytes,
  });
  assert.equal(put.statusCode, 200, put.body);
}

test('GET /media/covers/{file} streams the stored file byte for byte, with its length, type and tag', async (t) => {
  const bodies: string[] = [];
  const h = await buildHarness(t, {
    extend: (app) =>
      app.addHook('onSend', async (request, _reply, payload) => {
        if (request.url.startsWith('/media/')) bodies.push(payload instanceof Readable ? 'stream' : 'whole');
        return payload;
      }),
  });
  const { label, key } = await givenCaller(h);
  const release = await givenRelease(h, label.id);
  const bytes = await cover(2000);
  await withCover(h, key, release.id, bytes);
  const url = `/media/covers/${sha256(bytes)}.jpg`;

  const response = await call(h, 'GET', url);
  assert.equal(response.statusCode, 200);
  assert.ok(response.rawPayload.equals(bytes), 'byte-identical');
  assert.equal(response.headers['content-length'], String(bytes.length));
  assert.equal(response.headers['content-type'], 'image/jpeg');
  assert.equal(response.headers.etag, `"${sha256(bytes)}"`);
  assert.equal(response.headers['cache-control'], 'public, max-age=31536000, immutable');
  assert.deepEqual(bodies, ['stream']);

  const unchanged = await call(h, 'GET', url, { headers: { 'if-none-match': `"${sha256(bytes)}"` } });
  assert.equal(unchanged.statusCode, 304);
  assert.equal(unchanged.body, '');
  assert.equal(unchanged.headers.etag, `"${sha256(bytes)}"`);

  const resized = await call(h, 'GET', `${url}?w=300`);
  assert.equal(resized.statusCode, 200);
  assert.equal(resized.headers['content-length'], String(resized.rawPayload.length));
  assert.equal((await sharp(resized.rawPayload).metadata()).width, 300);

  rmSync(mediaPath(h.dataDir, 'covers', sha256(bytes), 'jpg'));
  const missing = await call(h, 'GET', url);
  assert.equal(missing.statusCode, 404);
  assert.deepEqual(json(missing), { error: 'Cover not found', code: 'not_found' });
});

test('a stored file is not collected while an upload of the same content commits', async (t) => {
  const h = await buildHarness(t);
  const { label, key } = await givenCaller(h);
  const artist = await givenArtist(h, label.id);
  const shown = await givenRelease(h, label.id, { artist_id: artist.id, title: 'Shown' });
  const next = await givenRelease(h, label.id, { artist_id: artist.id, title: 'Next' });
  const bytes = await cover();
  await withCover(h, key, shown.id, bytes);
  const stored = mediaPath(h.dataDir, 'covers', sha256(bytes), 'jpg');

  // The same image arrives for another release. Between moving it into place and committing the
  // row that refers to it, the release that showed it is deleted: the file's last reference goes.
  const received = await receiveToTemp(
    join(mediaRoot(h.dataDir), 'tmp'),
    Readable.from([bytes]),
    bytes.length,
    'The cover',
  );
  await keepUpload(h.ctx, 'covers', received, 'jpeg', async () => {
    const deleted = await call(h, 'DELETE', `/api/v1/releases/${shown.id}`, { key });
    assert.deepEqual([deleted.statusCode, json(deleted)], [200, { ok: true }]);
    assert.ok(existsSync(stored), 'kept while the upload commits');
    await h.ctx.db
      .updateTable('releases')
      .set({ cover_hash: sha256(bytes), cover_format: 'jpeg', cover_width: 1400, cover_height: 1400 })
      .where('id', '=', next.id)
      .execute();
  });
  const served = await call(h, 'GET', `/media/covers/${sha256(bytes)}.jpg`);
  assert.equal(served.statusCode, 200);
  assert.ok(served.rawPayload.equals(bytes));

  // Once nothing refers to it, the next collection removes it.
  const deleted = await call(h, 'DELETE', `/api/v1/releases/${next.id}`, { key });
  assert.equal(deleted.statusCode, 200);
  assert.equal(existsSync(stored), false);
});

test('a failed commit lets its file go, unless another row shows the same content', async (t) => {
  const h = await buildHarness(t);
  const { label, key } = await givenCaller(h);
  const release = await givenRelease(h, label.id);
  const bytes = await cover();
  const receive = () =>
    receiveToTemp(join(mediaRoot(h.dataDir), 'tmp'), Readable.from([bytes]), bytes.length, 'The cover');
  const failing = async () => {
    throw new Error('the release was submitted meanwhile');
  };
  await assert.rejects(keepUpload(h.ctx, 'covers', await receive(), 'jpeg', failing));
  const stored = mediaPath(h.dataDir, 'covers', sha256(bytes), 'jpg');
  assert.equal(existsSync(stored), false);

  await withCover(h, key, release.id, bytes);
  await assert.rejects(keepUpload(h.ctx, 'covers', await receive(), 'jpeg', failing));
  assert.ok(existsSync(stored), 'still shown by the release');
});

test('serve removes what stopped uploads left in media/tmp, and keeps files still being written', async (t) => {
  const install = await newInstallation('media_tmp');
  t.after(() => install.dispose());
  const tempDir = join(mediaRoot(install.dataDir), 'tmp');
  mkdirSync(tempDir, { recursive: true });
  const abandoned = join(tempDir, 'abandoned-upload');
  const recent = join(tempDir, 'upload-under-way');
  writeFileSync(abandoned, 'half an upload');
  writeFileSync(recent, 'an upload another server is receiving');
  const elevenMinutesAgo = new Date(Date.now() - 11 * 60 * 1000);
  utimesSync(abandoned, elevenMinutesAgo, elevenMinutesAgo);

  const server = await startServer(install, { TRUST_PROXY: '1' });
  t.after(() => server.stop());
  const status = await get(
    { protocol: 'http', port: server.port, path: '/api/v1/status' },
    { headers: { 'x-forwarded-proto': 'https' } },
  );
  assert.equal(status.status, 200);
  assert.equal(existsSync(abandoned), false);
  assert.equal(existsSync(recent), true);
});
