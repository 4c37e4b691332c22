import { randomBytes } from 'node:crypto';
import { linkSync, mkdirSync, readFileSync, statSync, unlinkSync, writeFileSync } from 'node:fs';
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
    return readKeyFile(file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  mkdirSync(config.dataDir, { recursive: true });
  // Written aside and linked into place, so a process starting at the same moment never reads a
  // half-written file; if another one linked its file first, that one is the secret. The mode is
  // given at creation, so the key is never readable by others, whatever the umask.
  const draft = `${file}.${process.pid}.${randomBytes(4).toString('hex')}`;
  writeFileSync(draft, `${randomBytes(32).toString('base64url')}\n`, { mode: 0o600 });
  try {
    linkSync(draft, file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  } finally {
    unlinkSync(draft);
  }
  return readKeyFile(file);
}

/** Whoever can read the key can read every webhook secret: like ssh, refuse a key others may open. */
function readKeyFile(file: string): string {
  const text = readFileSync(file, 'utf8');
  const { mode } = statSync(file);
  if (mode & 0o077) {
    const access = mode & 0o044 ? 'readable' : 'writable';
    throw new ConfigError(`${file} is ${access} by group or others; run chmod 600 ${file}`);
  }
  return checked(file, text);
}

/** A damaged file must stop the server, not become a weak key. */
function checked(file: string, text: string): string {
  const secret = text.trim();
  if (secret.length < 32) throw new ConfigError(`${file}: expected a master key of at least 32 characters`);
  return secret;
}
