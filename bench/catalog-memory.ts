// Peak memory of the server process while it streams a large body in or out: a 200 MB audio upload
// and the CSV export of the whole catalog. Measured on a real server process (its own RSS, not
// the bench's), with the kernel's high-water mark reset just before each transfer.
import { readFileSync, writeFileSync } from 'node:fs';
import { Readable } from 'node:stream';
import { type Child, freePort, LOOPBACK, startNodeChild, stopChild, waitUntilAnswering } from './children.ts';
import { labeldeskEnv, pcmWavHeader, postStream, REPO_ROOT } from './labeldesk.ts';

export interface MemoryResult {
  name: string;
  status: number;
  bytes: number;
  seconds: number;
  /** Peak resident memory above what the process held just before; null without /proc. */
  growthKb: number | null;
}

export interface Server {
  child: Child;
  origin: string;
  headers: Record<string, string>;
}

/** Plain HTTP behind a pretend proxy, as `npm run bench` runs it. */
export async function startServer(
  dataDir: string,
  databaseUrl: string,
  key: string,
  logFile: string,
): Promise<Server> {
  const port = await freePort();
  const child = startNodeChild('labeldesk', ['bin/labeldesk.js', 'serve'], {
    cwd: REPO_ROOT,
    env: labeldeskEnv(dataDir, {
      PORT: String(port),
      HOST: LOOPBACK,
      TRUST_PROXY: '1',
      DATABASE_URL: databaseUrl,
    }),
    logFile,
  });
  const origin = `http://${LOOPBACK}:${port}`;
  const headers = { 'x-forwarded-proto': 'https', authorization: `Bearer ${key}` };
  await waitUntilAnswering(child, `${origin}/api/v1/me`, headers);
  return { child, origin, headers };
}

export const stopServer = (server: Server) => stopChild(server.child);

function statusKb(child: Child, field: 'VmRSS' | 'VmHWM'): number | null {
  try {
    const status = readFileSync(`/proc/${child.process.pid}/status`, 'utf8');
    const match = new RegExp(`^${field}:\\s+(\\d+) kB$`, 'm').exec(status);
    return match?.[1] ? Number(match[1]) : null;
  } catch {
    return null;
  }
}

/** Writing 5 to clear_refs sets the high-water mark (VmHWM) back to the current RSS (Linux 4.0+). */
function resetPeak(child: Child): boolean {
  try {
    writeFileSync(`/proc/${child.process.pid}/clear_refs`, '5');
    return true;
  } catch {
    return false;
  }
}

async function measured(
  server: Server,
  name: string,
  transfer: () => Promise<{ status: number; bytes: number }>,
): Promise<MemoryResult> {
  const reset = resetPeak(server.child);
  const before = statusKb(server.child, 'VmRSS');
  const started = performance.now();
  const { status, bytes } = await transfer();
  const seconds = (performance.now() - started) / 1000;
  const peak = reset ? statusKb(server.child, 'VmHWM') : null;
  return { name, status, bytes, seconds, growthKb: peak !== null && before !== null ? peak - before : null };
}

/** Reads the body as it arrives and keeps only its length. */
async function drain(response: Response): Promise<number> {
  let bytes = 0;
  if (!response.body) return bytes;
  for await (const chunk of response.body) bytes += chunk.byteLength;
  return bytes;
}

export function measureExport(server: Server): Promise<MemoryResult> {
  return measured(server, 'GET /catalog/export.csv (whole catalog)', async () => {
    const response = await fetch(`${server.origin}/api/v1/catalog/export.csv`, { headers: server.headers });
    return { status: response.status, bytes: await drain(response) };
  });
}

const BOUNDARY = 'labeldesk-bench-boundary';
const CHUNK = Buffer.alloc(1024 * 1024);
const CD_QUALITY = { sampleRate: 44_100, channels: 2, bits: 16 };

/** A multipart form with a title and a WAV file of `fileBytes`, generated as it is sent. */
async function* uploadForm(fileBytes: number): AsyncGenerator<Buffer> {
  yield Buffer.from(
    `--${BOUNDARY}\r\nContent-Disposition: form-data; name="title"\r\n\r\nBench upload\r\n` +
      `--${BOUNDARY}\r\nContent-Disposition: form-data; name="audio"; filename="bench.wav"\r\n` +
      'Content-Type: audio/wav\r\n\r\n',
  );
  // Whole 4-byte frames, so the file is valid PCM.
  const dataBytes = Math.floor((fileBytes - 44) / 4) * 4;
  yield pcmWavHeader(dataBytes, CD_QUALITY);
  for (let left = dataBytes; left > 0; left -= CHUNK.length) {
    yield left >= CHUNK.length ? CHUNK : CHUNK.subarray(0, left);
  }
  yield Buffer.from(`\r\n--${BOUNDARY}--\r\n`);
}

export function measureUpload(server: Server, releaseId: number, fileBytes: number): Promise<MemoryResult> {
  const name = `POST /releases/{id}/tracks (${Math.round(fileBytes / 1024 / 1024)} MB WAV)`;
  return measured(server, name, async () => {
    const { status, text } = await postStream(
      `${server.origin}/api/v1/releases/${releaseId}/tracks`,
      { ...server.headers, 'content-type': `multipart/form-data; boundary=${BOUNDARY}` },
      Readable.from(uploadForm(fileBytes)),
    );
    if (status !== 201) throw new Error(`the upload answered ${status}: ${text.slice(0, 300)}`);
    return { status, bytes: fileBytes };
  });
}
