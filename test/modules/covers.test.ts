import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { existsSync, readdirSync } from 'node:fs';
import { stat, utimes } from 'node:fs/promises';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { test } from 'node:test';
import sharp from 'sharp';
import { MAX_COVER_BYTES } from '../../src/modules/covers/covers.service.ts';
import { givenRelease } from '../helpers/catalog.ts';
import {
  BASE_URL,
  buildHarness,
  call,
  givenCaller,
  givenKey,
  givenLabel,
  type Harness,
  json,
} from '../helpers/harness.ts';
import { mediaPath, mediaRoot, variantPath } from '../helpers/media.ts';

type Format = 'jpeg' | 'png';

async function image(format: Format, width: number, height = width): Promise<Buffer> {
  const canvas = sharp({ create: { width, height, channels: 3, background: { r: 180, g: 40, b: 90 } } });
  return format === 'jpeg' ? canvas.jpeg().toBuffer() : canvas.png().toBuffer();
}

function sha256(bytes: Buffer): string {
  return createHash('sha256').update(bytes).digest('hex');
}

const BOUNDARY = '----labeldesk-test-boundary';

function multipartBody(field: string, bytes: Buffer, contentType = 'image/jpeg'): Buffer {
  return Buffer.concat([
    Buffer.from(
      `--${BOUNDARY}\r\nContent-Disposition: form-data; name="${field}"; filename="cover"\r\nContent-Type: ${contentType}\r\n\r\n`,
    ),
    bytes,
    Buffer.from(`\r\n--${BOUNDARY}--\r\n`),
  ]);
}

const MULTIPART = { 'content-type': `multipart/form-data; boundary=${BOUNDARY}` };

interface Setup {
  h: Harness;
  key: string;
  releaseId: number;
  artistId: number;
  workspaceId: number;
}

async function setup(t: Parameters<typeof buildHarness>[0], scopes = ['catalog:write']): Promise<Setup> {
  const h = await buildHarness(t);
  const { label, key } = await givenCaller(h, { scopes });
  const release = await givenRelease(h, label.id);
  return { h, key, releaseId: release.id, artistId: release.artist_id, workspaceId: label.id };
}

function putCover(s: Setup, payload: Buffer | Readable, contentType: string, releaseId = s.releaseId) {
  return call(s.h, 'PUT', `/api/v1/releases/${releaseId}/cover`, {
    key: s.key,
    headers: { 'content-type': contentType },
    payload,
  });
}

async function releaseRow(s: Setup) {
  return s.h.ctx.db
    .selectFrom('releases')
    .select(['cover_hash', 'cover_format', 'cover_width', 'cover_height', 'cover_bytes', 'updated_at'])
    .where('id', '=', s.releaseId)
    .executeTakeFirstOrThrow();
}

/** Every file under the data dir's media folder, as paths relative to it. */
function mediaFiles(h: Harness): string[] {
  const root = mediaRoot(h.dataDir);
  if (!existsSync(root)) return [];
  return readdirSync(root, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => join(entry.parentPath, entry.name).slice(root.length + 1))
    .sort();
}

function coverUrlOf(bytes: Buffer, ext: 'jpg' | 'png'): string {
  return `${BASE_URL}/media/covers/${sha256(bytes)}.${ext}`;
}

test('PUT /releases/{id}/cover stores a square JPEG and records it on the release', async (t) => {
  const s = await setup(t);
  const cover = await image('jpeg', 1400);
  s.h.clock.advance(60_000);
  const response = await putCover(s, cover, 'image/jpeg');
  assert.equal(response.statusCode, 200);
  assert.deepEqual(json(response), {
    ok: true,
    cover_url: coverUrlOf(cover, 'jpg'),
    width: 1400,
    height: 1400,
    bytes: cover.length,
  });
  assert.deepEqual(await releaseRow(s), {
    cover_hash: sha256(cover),
    cover_format: 'jpeg',
    cover_width: 1400,
    cover_height: 1400,
    cover_bytes: cover.length,
    updated_at: '2026-03-02T10:01:00.000Z',
  });
  assert.deepEqual(mediaFiles(s.h), [join('covers', sha256(cover).slice(0, 2), `${sha256(cover)}.jpg`)]);
});

test('the format is decoded from the bytes: a PNG declared as image/jpeg is stored as PNG', async (t) => {
  const s = await setup(t);
  const cover = await image('png', 1500);
  const response = await putCover(s, cover, 'image/jpeg');
  assert.equal(response.statusCode, 200);
  assert.deepEqual(json(response), {
    ok: true,
    cover_url: coverUrlOf(cover, 'png'),
    width: 1500,
    height: 1500,
    bytes: cover.length,
  });
  assert.equal((await releaseRow(s)).cover_format, 'png');
  assert.ok(existsSync(mediaPath(s.h.dataDir, 'covers', sha256(cover), 'png')));
});

test('a cover may come as multipart/form-data in the file field cover', async (t) => {
  const s = await setup(t);
  const cover = await image('png', 1500);
  const response = await putCover(s, multipartBody('cover', cover, 'image/png'), MULTIPART['content-type']);
  assert.equal(response.statusCode, 200);
  assert.deepEqual(json(response), {
    ok: true,
    cover_url: coverUrlOf(cover, 'png'),
    width: 1500,
    height: 1500,
    bytes: cover.length,
  });
});

test('a raw image sent as a stream without a declared length is accepted', async (t) => {
  const s = await setup(t);
  const cover = await image('jpeg', 1400);
  const half = cover.length >> 1;
  const response = await putCover(
    s,
    Readable.from([cover.subarray(0, half), cover.subarray(half)]),
    'image/jpeg',
  );
  assert.equal(response.statusCode, 200);
  assert.deepEqual(json(response), {
    ok: true,
    cover_url: coverUrlOf(cover, 'jpg'),
    width: 1400,
    height: 1400,
    bytes: cover.length,
  });
});

test('a multipart body cut short is 400 on body, and leaves nothing on disk', async (t) => {
  const s = await setup(t);
  const whole = multipartBody('cover', await image('jpeg', 1400));
  const response = await putCover(s, whole.subarray(0, whole.length - 40), MULTIPART['content-type']);
  assert.equal(response.statusCode, 400);
  assert.deepEqual(json(response), {
    error: 'The multipart body is malformed or was cut short',
    code: 'invalid',
    field: 'body',
  });
  assert.deepEqual(mediaFiles(s.h), []);
});

test('multipart without a file field named cover is refused', async (t) => {
  const s = await setup(t);
  const response = await putCover(
    s,
    multipartBody('image', await image('jpeg', 1400)),
    MULTIPART['content-type'],
  );
  assert.equal(response.statusCode, 400);
  assert.deepEqual(json(response), {
    error: 'The multipart body needs the image in a file field named cover',
    code: 'invalid',
    field: 'cover',
  });
  assert.equal((await releaseRow(s)).cover_hash, null);
});

test('a cover that is not square or is under 1400 px gives 400 with its dimensions', async (t) => {
  const s = await setup(t);
  const cases = [
    {
      cover: await image('jpeg', 1400, 1000),
      body: { error: 'The cover must be square; it is 1400x1000 px', width: 1400, height: 1000 },
    },
    {
      cover: await image('png', 1000),
      body: {
        error: 'The cover must be at least 1400x1400 px; it is 1000x1000 px',
        width: 1000,
        height: 1000,
      },
    },
  ];
  for (const { cover, body } of cases) {
    const response = await putCover(s, cover, 'image/png');
    assert.equal(response.statusCode, 400);
    assert.deepEqual(json(response), { ...body, code: 'invalid', field: 'cover' });
  }
  assert.equal((await releaseRow(s)).cover_hash, null);
  assert.deepEqual(mediaFiles(s.h), []);
});

test('bytes that are not an image, or an image of another format, are refused', async (t) => {
  const s = await setup(t);
  const garbage = await putCover(s, randomBytes(4096), 'image/png');
  assert.equal(garbage.statusCode, 400);
  assert.deepEqual(json(garbage), {
    error: 'The cover is not a readable image; send a JPEG or PNG file',
    code: 'invalid',
    field: 'cover',
  });

  const webp = await sharp({ create: { width: 1400, height: 1400, channels: 3, background: '#123456' } })
    .webp()
    .toBuffer();
  const other = await putCover(s, webp, 'image/jpeg');
  assert.equal(other.statusCode, 400);
  assert.deepEqual(json(other), {
    error: 'The cover must be a JPEG or PNG image; this is webp',
    code: 'invalid',
    field: 'cover',
    width: 1400,
    height: 1400,
  });

  const whole = await image('jpeg', 1400);
  const truncated = await putCover(s, whole.subarray(0, Math.floor(whole.length / 2)), 'image/jpeg');
  assert.equal(truncated.statusCode, 400);
  assert.deepEqual(json(truncated), {
    error: 'The cover image is damaged or truncated',
    code: 'invalid',
    field: 'cover',
    width: 1400,
    height: 1400,
  });
  assert.deepEqual(mediaFiles(s.h), []);
});

test('a cover over 20 MB gives 413 and leaves nothing on disk, however it is sent', async (t) => {
  const s = await setup(t);
  const tooLarge = randomBytes(MAX_COVER_BYTES + 1);
  const expected = { error: 'The cover is larger than 20 MB', code: 'payload_too_large' };

  // Declared length: refused before a byte is read.
  const declared = await putCover(s, tooLarge, 'image/jpeg');
  assert.equal(declared.statusCode, 413);
  assert.deepEqual(json(declared), expected);

  // No length declared: the transfer is cut while it is written to media/tmp.
  const streamed = await putCover(
    s,
    Readable.from([tooLarge.subarray(0, 1 << 20), tooLarge.subarray(1 << 20)]),
    'image/png',
  );
  assert.equal(streamed.statusCode, 413);
  assert.deepEqual(json(streamed), expected);

  const multipart = await putCover(s, multipartBody('cover', tooLarge), MULTIPART['content-type']);
  assert.equal(multipart.statusCode, 413);
  assert.deepEqual(json(multipart), expected);

  assert.deepEqual(mediaFiles(s.h), []);
  assert.equal((await releaseRow(s)).cover_hash, null);
});

test('any other body gives 415', async (t) => {
  const s = await setup(t);
  for (const [contentType, payload] of [
    ['application/json', '{"cover":"x"}'],
    ['text/plain', 'cover'],
    ['image/webp', 'webp bytes'],
  ] as const) {
    const response = await putCover(s, Buffer.from(payload), contentType);
    assert.equal(response.statusCode, 415, contentType);
    assert.deepEqual(json(response), {
      error: `Content type ${contentType} is not accepted here`,
      code: 'unsupported_media_type',
    });
  }
});

test("another label's release is 404, a release that is not a draft is 409", async (t) => {
  const s = await setup(t);
  const cover = await image('jpeg', 1400);
  const other = await givenLabel(s.h, { name: 'Other Records' });
  const foreign = await givenRelease(s.h, other.id);
  const notFound = await putCover(s, cover, 'image/jpeg', foreign.id);
  assert.equal(notFound.statusCode, 404);
  assert.deepEqual(json(notFound), { error: 'Release not found', code: 'not_found' });

  await s.h.ctx.db.updateTable('releases').set({ status: 'live' }).where('id', '=', s.releaseId).execute();
  const conflict = await putCover(s, cover, 'image/jpeg');
  assert.equal(conflict.statusCode, 409);
  assert.deepEqual(json(conflict), {
    error: 'Changing the cover is only possible while the release is a draft (it is live)',
    code: 'conflict',
  });
  assert.deepEqual(mediaFiles(s.h), []);
});

test('a key without catalog:write is 403, and a bad id is 400', async (t) => {
  const s = await setup(t, ['catalog:read']);
  const cover = await image('jpeg', 1400);
  const forbidden = await putCover(s, cover, 'image/jpeg');
  assert.equal(forbidden.statusCode, 403);
  assert.deepEqual(json(forbidden), {
    error: 'This key lacks the scope catalog:write',
    code: 'forbidden',
    required_scope: 'catalog:write',
  });

  const writer = { ...s, key: await givenKey(s.h, s.workspaceId, { scopes: ['catalog:write'] }) };
  const badId = await putCover(writer, cover, 'image/jpeg', 0);
  assert.equal(badId.statusCode, 400);
  assert.deepEqual(json(badId), { error: 'id must be >= 1', code: 'invalid', field: 'id' });
});

test('a replaced cover is removed once no release shows it, kept while another one does', async (t) => {
  const s = await setup(t);
  const first = await image('jpeg', 1400);
  const second = await image('png', 1400);
  const third = await image('jpeg', 1600);
  assert.equal((await putCover(s, first, 'image/jpeg')).statusCode, 200);
  assert.equal((await call(s.h, 'GET', `/media/covers/${sha256(first)}.jpg?w=300`)).statusCode, 200);
  // A sandbox copy of the release shares the file.
  const copy = await givenRelease(s.h, s.workspaceId, {
    artist_id: s.artistId,
    cover_hash: sha256(first),
    cover_format: 'jpeg',
  });

  assert.equal((await putCover(s, second, 'image/png')).statusCode, 200);
  assert.ok(existsSync(mediaPath(s.h.dataDir, 'covers', sha256(first), 'jpg')), 'still shown by the copy');

  assert.equal((await putCover(s, third, 'image/jpeg', copy.id)).statusCode, 200);
  assert.deepEqual(
    mediaFiles(s.h),
    [
      join('covers', sha256(second).slice(0, 2), `${sha256(second)}.png`),
      join('covers', sha256(third).slice(0, 2), `${sha256(third)}.jpg`),
    ].sort(),
  );
  const gone = await call(s.h, 'GET', `/media/covers/${sha256(first)}.jpg`);
  assert.equal(gone.statusCode, 404);
});

test('GET /media/covers/{file} serves the stored image without a key, with the standard headers', async (t) => {
  const s = await setup(t);
  const jpeg = await image('jpeg', 1400);
  await putCover(s, jpeg, 'image/jpeg');
  const response = await call(s.h, 'GET', `/media/covers/${sha256(jpeg)}.jpg`);
  assert.equal(response.statusCode, 200);
  assert.equal(response.headers['content-type'], 'image/jpeg');
  assert.deepEqual(response.rawPayload, jpeg);
  assert.equal(response.headers['x-api-version'], '1.1.0');
  assert.equal(typeof response.headers['x-request-id'], 'string');
  assert.equal(response.headers.etag, `"${sha256(jpeg)}"`);

  const unchanged = await call(s.h, 'GET', `/media/covers/${sha256(jpeg)}.jpg`, {
    headers: { 'if-none-match': `"${sha256(jpeg)}"` },
  });
  assert.equal(unchanged.statusCode, 304);
  assert.equal(unchanged.body, '');

  const png = await image('png', 1500);
  await putCover(s, png, 'image/png');
  const pngResponse = await call(s.h, 'GET', `/media/covers/${sha256(png)}.png`);
  assert.equal(pngResponse.headers['content-type'], 'image/png');
  assert.deepEqual(pngResponse.rawPayload, png);
});

test('a cover file is cached for a year and never asked again, since its address names its content; errors are not cached', async (t) => {
  const s = await setup(t);
  const cover = await image('jpeg', 1400);
  await putCover(s, cover, 'image/jpeg');
  const file = `/media/covers/${sha256(cover)}.jpg`;
  const forever = 'public, max-age=31536000, immutable';
  for (const [url, headers, status] of [
    [file, {}, 200],
    [`${file}?w=640`, {}, 200],
    [`${file}?w=3000`, {}, 200],
    [`${file}?w=640`, { 'if-none-match': `"${sha256(cover)}-w640"` }, 304],
  ] as const) {
    const response = await call(s.h, 'GET', url, { headers });
    assert.equal(response.statusCode, status, url);
    assert.equal(response.headers['cache-control'], forever, url);
  }
  for (const [url, status] of [
    [`/media/covers/${sha256(Buffer.from('x'))}.jpg`, 404],
    [`${file}?w=301`, 400],
  ] as const) {
    const response = await call(s.h, 'GET', url);
    assert.equal(response.statusCode, status, url);
    assert.equal(response.headers['cache-control'], 'no-store', url);
  }
});

test('GET /media/covers/{file}?w= renders a resized copy once and serves it from disk after', async (t) => {
  const s = await setup(t);
  const cover = await image('jpeg', 1400);
  await putCover(s, cover, 'image/jpeg');
  const url = `/media/covers/${sha256(cover)}.jpg?w=300`;

  const first = await call(s.h, 'GET', url);
  assert.equal(first.statusCode, 200);
  assert.equal(first.headers['content-type'], 'image/jpeg');
  assert.equal(first.headers.etag, `"${sha256(cover)}-w300"`);
  const resized = await sharp(first.rawPayload).metadata();
  assert.deepEqual([resized.format, resized.width, resized.height], ['jpeg', 300, 300]);

  const variant = variantPath(s.h.dataDir, 'covers', sha256(cover), 'jpg', 300);
  const past = new Date('2020-01-01T00:00:00Z');
  await utimes(variant, past, past);
  const second = await call(s.h, 'GET', url);
  assert.equal(second.statusCode, 200);
  assert.deepEqual(second.rawPayload, first.rawPayload);
  assert.equal((await stat(variant)).mtime.getTime(), past.getTime(), 'not rendered again');
  assert.deepEqual(readdirSync(join(mediaRoot(s.h.dataDir), 'tmp')), []);
});

test('a width not below the original serves the original; a PNG stays a PNG', async (t) => {
  const s = await setup(t);
  const png = await image('png', 1500);
  await putCover(s, png, 'image/png');
  for (const width of [1500, 3000]) {
    const response = await call(s.h, 'GET', `/media/covers/${sha256(png)}.png?w=${width}`);
    assert.equal(response.statusCode, 200);
    assert.deepEqual(response.rawPayload, png);
    assert.equal(response.headers.etag, `"${sha256(png)}"`);
  }
  const small = await call(s.h, 'GET', `/media/covers/${sha256(png)}.png?w=640`);
  assert.equal(small.headers['content-type'], 'image/png');
  const resized = await sharp(small.rawPayload).metadata();
  assert.deepEqual([resized.format, resized.width, resized.height], ['png', 640, 640]);
});

test('a bad width is 400 on w; an unknown or malformed name is 404', async (t) => {
  const s = await setup(t);
  const cover = await image('jpeg', 1400);
  await putCover(s, cover, 'image/jpeg');
  const file = `/media/covers/${sha256(cover)}.jpg`;
  for (const [w, error] of [
    ['15', 'w must be equal to one of the allowed values'],
    ['301', 'w must be equal to one of the allowed values'],
    ['3001', 'w must be equal to one of the allowed values'],
    ['300.5', 'w must be integer'],
    ['big', 'w must be integer'],
  ]) {
    const response = await call(s.h, 'GET', `${file}?w=${w}`);
    assert.equal(response.statusCode, 400, w);
    assert.deepEqual(json(response), { error, code: 'invalid', field: 'w' });
  }
  for (const name of [
    `${sha256(Buffer.from('x'))}.jpg`,
    `${sha256(cover)}.png`,
    'cover.jpg',
    '..%2Fsecret.jpg',
  ]) {
    const response = await call(s.h, 'GET', `/media/covers/${name}`);
    assert.equal(response.statusCode, 404, name);
    assert.deepEqual(json(response), { error: 'Cover not found', code: 'not_found' });
  }
});
