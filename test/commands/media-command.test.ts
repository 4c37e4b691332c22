import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { test } from 'node:test';
import { cliJson, newInstallation, runLabeldesk } from '../helpers/installation.ts';
import { bucketKeys, startS3Server } from '../helpers/s3.ts';

const STORED = [
  `audio/ab/${'ab'.repeat(32)}.wav`,
  `covers/cd/${'cd'.repeat(32)}.jpg`,
  `covers/w300/cd/${'cd'.repeat(32)}.jpg`,
];

test('media migrate copies a local media folder into a bucket, skips what is there, and says how many', async (t) => {
  const s3 = await startS3Server();
  t.after(() => s3.close());
  const install = await newInstallation('media_migrate');
  t.after(() => install.dispose());
  for (const key of [...STORED, 'tmp/an-upload-under-way']) {
    const path = join(install.dataDir, 'media', ...key.split('/'));
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, `bytes of ${key}`);
  }
  // MEDIA_URL still names the folder (its default); the S3 variables say how to reach the bucket.
  const { MEDIA_URL: target = '', ...reach } = s3.env;
  Object.assign(install.env, reach);

  const first = await cliJson<unknown>(install, ['media', 'migrate', '--to', target]);
  assert.deepEqual(first, { to: target, copied: 3, skipped: 0 });
  assert.deepEqual(await bucketKeys(s3), STORED.map((key) => `media/${key}`).sort());

  const again = await runLabeldesk(install, ['media', 'migrate', '--to', target]);
  assert.equal(again.code, 0, again.stderr);
  assert.equal(
    again.stdout,
    `Copied 0 files to ${target}; 3 were there already. Set MEDIA_URL=${target} to use it.\n`,
  );

  const bad = await runLabeldesk(install, ['media', 'migrate', '--to', 'bucket/media']);
  assert.deepEqual(
    { code: bad.code, stderr: bad.stderr },
    {
      code: 1,
      stderr:
        'labeldesk: --to: expected file:///absolute/path or s3://bucket/optional/prefix (got "bucket/media")\n',
    },
  );
});
