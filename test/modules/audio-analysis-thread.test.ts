import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { promisify } from 'node:util';
import { lossySourceEvidenceOffThread } from '../../src/modules/moderation/moderation.pool.ts';
import { pcmWav, riffChunk, STEREO_CD } from '../helpers/audio.ts';

const execFileAsync = promisify(execFile);
const POOL = new URL('../../src/modules/moderation/moderation.pool.ts', import.meta.url).href;

/** Half a second of silence whose tags name LAME: evidence the analysis thread finds by itself. */
function lameTaggedWav(): Buffer {
  const software = riffChunk('ISFT', Buffer.from('LAME3.100\0', 'latin1'));
  const info = riffChunk('LIST', Buffer.concat([Buffer.from('INFO', 'latin1'), software]));
  return pcmWav(STEREO_CD, new Array<number>(22_050).fill(0), [info]);
}

async function withWav<T>(work: (path: string, dir: string) => Promise<T>): Promise<T> {
  const dir = await mkdtemp(join(tmpdir(), 'labeldesk-analysis-'));
  try {
    const path = join(dir, 'tagged.wav');
    await writeFile(path, lameTaggedWav());
    return await work(path, dir);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

const LAME_EVIDENCE = { kind: 'encoder_tag', tag: 'LAME3.100' };

test('an analysis runs in a thread of a process started with node --import tsx (as tests are)', async () => {
  await withWav(async (path) => {
    assert.deepEqual(await lossySourceEvidenceOffThread(path, 'wav'), LAME_EVIDENCE);
  });
});

test('an analysis runs in a thread of a plain node process that registered tsx in code, as bin/labeldesk.js does', async () => {
  await withWav(async (path, dir) => {
    const script = [
      `import { register } from ${JSON.stringify(import.meta.resolve('tsx/esm/api'))};`,
      'register();',
      `const pool = await import(${JSON.stringify(POOL)});`,
      `console.log(JSON.stringify(await pool.lossySourceEvidenceOffThread(${JSON.stringify(path)}, 'wav')));`,
      'await pool.closeAudioAnalysis();',
    ].join('\n');
    // Another working directory, and no --import flag for the thread to inherit.
    const { stdout } = await execFileAsync(process.execPath, ['--input-type=module', '-e', script], {
      cwd: dir,
      timeout: 60_000,
    });
    assert.deepEqual(JSON.parse(stdout), LAME_EVIDENCE);
  });
});
