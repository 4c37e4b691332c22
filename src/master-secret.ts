import { randomBytes } from 'node:crypto';
import { linkSync, mkdirSync, readFileSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { type Config, ConfigError } from './config.ts';

/**
 * LABELDESK_SECRET, or a secret generated once into the data dir. Instances that share one
 * database must share it too (set LABELDESK_SECRET), since it decrypts what another one encrypted.
 */
export function masterSecret(config: Pick<Config, 'secret' | 'dataDir'>): string {
  if (config.secret !== null) return config.secret;
  const file = join(config.dataDir, 'master.key');
  try {
    return checked(file, readFileSync(file, 'utf8'));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  mkdirSync(config.dataDir, { recursive: true });
  // Written aside and linked into place, so a process starting at the same moment never reads a
  // half-written file; if another one linked its file first, that one is the secret.
  const draft = `${file}.${process.pid}.${randomBytes(4).toString('hex')}`;
  writeFileSync(draft, `${randomBytes(32).toString('base64url')}\n`, { mode: 0o600 });
  try {
    linkSync(draft, file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  } finally {
    unlinkSync(draft);
  }
  return checked(file, readFileSync(file, 'utf8'));
}

/** A damaged file must stop the server, not become a weak key. */
function checked(file: string, text: string): string {
  const secret = text.trim();
  if (secret.length < 32) throw new ConfigError(`${file}: expected a master key of at least 32 characters`);
  return secret;
}
