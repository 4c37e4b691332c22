// Does a 200 MB WAV stream into S3-compatible storage, or pile up in the server's memory? A real
// server process with MEDIA_URL=s3://… (an s3rver in this process, so its memory is not counted)
// receives a track, then a 200 MB replacement of its audio; the server's resident memory is sampled
// from /proc while the upload runs and compared with what it was just before.
//
// BENCH_MEDIA_SAMPLE_MS sets how often the memory is read (20 ms); BENCH_MEDIA_BACKEND=file runs the
// same upload into the data dir instead, for comparison.
import { randomBytes } from 'node:crypto';
import { createReadStream, createWriteStream, readFileSync } from 'node:fs';
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { request as httpRequest } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { bucketKeys, startS3Server } from '../test/helpers/s3.ts';
import {
  type Child,
  freePort,
  LOOPBACK,
  logTail,
  startNodeChild,
  stopChild,
  waitUntilAnswering,
} from './children.ts';
import { apiJson, labeldeskEnv, numberAt, pcmWavHeader, prepareDataDir, REPO_ROOT } from './labeldesk.ts';
import { positiveInteger } from './settings.ts';

const GOAL_GROWTH_MB = 64;
/** The upload limit is 200 MiB; the file stays just under it. */
const FILE_BYTES = 200 * 1024 * 1024 - 1024;
const NOISE_BLOCK_BYTES = 1024 * 1024;
const SHAPE = { sampleRate: 48_000, channels: 2, bits: 24 };
const BOUNDARY = '----labeldesk-bench-media';
const VIA_PROXY = { 'x-forwarded-proto': 'https' };

const sampleMs = positiveInteger('BENCH_MEDIA_SAMPLE_MS', 20);
const intoBucket = process.env.BENCH_MEDIA_BACKEND !== 'file';

async function writeWav(path: string, bytes: number): Promise<number> {
  const blockAlign = (SHAPE.bits / 8) * SHAPE.channels;
  const dataBytes = Math.floor((bytes - 44) / blockAlign) * blockAlign;
  const noise = randomBytes(NOISE_BLOCK_BYTES);
  await pipeline(async function* () {
    yield pcmWavHeader(dataBytes, SHAPE);
    for (let written = 0; written < dataBytes; written += NOISE_BLOCK_BYTES) {
      yield written + NOISE_BLOCK_BYTES <= dataBytes ? noise : noise.subarray(0, dataBytes - written);
    }
  }, createWriteStream(path));
  return (await stat(path)).size;
}

/** Resident set size now (`VmRSS`) and at its peak so far (`VmHWM`), in kB. */
function memoryKb(child: Child): { rss: number; peak: number } {
  const status = readFileSync(`/proc/${child.process.pid}/status`, 'utf8');
  const field = (name: string) =>
    Number(new RegExp(`^${name}:\\s+(\\d+)\\s+kB$`, 'm').exec(status)?.[1] ?? NaN);
  return { rss: field('VmRSS'), peak: field('VmHWM') };
}

/** A track with a one-second WAV, through the multipart form: it also loads the upload and S3 code. */
async function createTrack(
  origin: string,
  headers: Record<string, string>,
  releaseId: number,
): Promise<number> {
  const second = Buffer.concat([
    pcmWavHeader(SHAPE.sampleRate * 6, SHAPE),
    randomBytes(SHAPE.sampleRate * 6),
  ]);
  const body = Buffer.concat([
    Buffer.from(
      `--${BOUNDARY}\r\nContent-Disposition: form-data; name="title"\r\n\r\nNight Drive\r\n--${BOUNDARY}\r\nContent-Disposition: form-data; name="audio"; filename="short.wav"\r\nContent-Type: audio/wav\r\n\r\n`,
    ),
    second,
    Buffer.from(`\r\n--${BOUNDARY}--\r\n`),
  ]);
  const response = await fetch(`${origin}/api/v1/releases/${releaseId}/tracks`, {
    method: 'POST',
    headers: { ...headers, 'content-type': `multipart/form-data; boundary=${BOUNDARY}` },
    body,
  });
  const answer = (await response.json()) as Record<string, unknown>;
  if (response.status !== 201)
    throw new Error(`the track answered ${response.status}: ${JSON.stringify(answer)}`);
  return numberAt(answer, ['track', 'id']);
}

/** PUT …/audio with the WAV as the raw body, streamed from disk. */
function replaceAudio(url: string, headers: Record<string, string>, path: string, bytes: number) {
  return new Promise<number>((resolve, reject) => {
    const request = httpRequest(
      url,
      {
        method: 'PUT',
        headers: { ...headers, 'content-type': 'audio/wav', 'content-length': String(bytes) },
      },
      (response) => {
        response.resume();
        response.on('end', () => resolve(response.statusCode ?? 0));
      },
    );
    request.on('error', reject);
    pipeline(createReadStream(path), request).catch(reject);
  });
}

async function main(): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), 'labeldesk-bench-media-'));
  const dataDir = join(dir, 'data');
  const s3 = await startS3Server();
  const key = await prepareDataDir(dataDir);
  const wavPath = join(dir, 'long.wav');
  const bytes = await writeWav(wavPath, FILE_BYTES);
  const port = await freePort();
  const child = startNodeChild('labeldesk', ['bin/labeldesk.js', 'serve'], {
    cwd: REPO_ROOT,
    env: labeldeskEnv(dataDir, {
      ...(intoBucket ? s3.env : {}),
      PORT: String(port),
      HOST: LOOPBACK,
      TRUST_PROXY: '1',
    }),
    logFile: join(dir, 'labeldesk.log'),
  });
  const origin = `http://${LOOPBACK}:${port}`;
  const headers = { ...VIA_PROXY, 'x-forwarded-for': '192.0.2.1', authorization: `Bearer ${key}` };
  try {
    await waitUntilAnswering(child, `${origin}/api/v1/status`, {
      ...VIA_PROXY,
      'x-forwarded-for': '192.0.2.2',
    });
    const artist = await apiJson(origin, headers, {
      method: 'POST',
      path: '/api/v1/artists',
      body: { name: 'Mira Vale' },
      expectStatus: 201,
    });
    const release = await apiJson(origin, headers, {
      method: 'POST',
      path: '/api/v1/releases',
      body: {
        artist_id: numberAt(artist, ['artist', 'id']),
        type: 'single',
        title: 'Night Drive',
        genre: 'Pop',
        release_date: '2027-03-01',
      },
      expectStatus: 201,
    });
    const releaseId = numberAt(release, ['release', 'id']);
    const trackId = await createTrack(origin, headers, releaseId);

    const before = memoryKb(child);
    let highest = before.rss;
    const sampler = setInterval(() => {
      highest = Math.max(highest, memoryKb(child).rss);
    }, sampleMs);
    const started = performance.now();
    const status = await replaceAudio(
      `${origin}/api/v1/releases/${releaseId}/tracks/${trackId}/audio`,
      headers,
      wavPath,
      bytes,
    );
    const seconds = (performance.now() - started) / 1000;
    clearInterval(sampler);
    const after = memoryKb(child);
    highest = Math.max(highest, after.rss);
    if (status !== 200) throw new Error(`the 200 MB upload answered ${status}`);
    const stored = (await bucketKeys(s3)).filter((name) => name.startsWith('media/audio/'));
    if (intoBucket && stored.length !== 1)
      throw new Error(`the bucket holds ${stored.length} audio objects, expected 1`);

    const mb = (kb: number) => (kb / 1024).toFixed(1);
    const growthKb = highest - before.rss;
    console.log(
      `\nPUT …/audio, ${(bytes / 1024 / 1024).toFixed(1)} MB WAV into ${intoBucket ? `s3rver (MEDIA_URL=${s3.env.MEDIA_URL})` : 'the data dir'} in ${seconds.toFixed(1)} s (${(bytes / 1024 / 1024 / seconds).toFixed(0)} MB/s)`,
    );
    console.log(
      `server RSS before ${mb(before.rss)} MB, highest sampled every ${sampleMs} ms ${mb(highest)} MB, after ${mb(after.rss)} MB; VmHWM before ${mb(before.peak)} MB, after ${mb(after.peak)} MB`,
    );
    const verdict = growthKb < GOAL_GROWTH_MB * 1024 ? 'PASS' : 'FAIL';
    console.log(
      `goal: 200 MB upload grows RSS by < ${GOAL_GROWTH_MB} MB: ${verdict} (grew ${mb(growthKb)} MB)`,
    );
    if (verdict === 'FAIL') process.exitCode = 1;
  } catch (error) {
    console.error(
      `${error instanceof Error ? error.message : String(error)}\nserver log tail:\n${logTail(child.logFile)}`,
    );
    process.exitCode = 1;
  } finally {
    await stopChild(child);
    await s3.close();
    await rm(dir, { recursive: true, force: true });
  }
}

await main();
