// The self-signed pair a bench's HTTPS servers present (the one Labeldesk makes for itself), written
// where a server's TLS_CERT_FILE and TLS_KEY_FILE can name it; the bench's own requests trust `cert`.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadConfig } from '../src/config.ts';
import { loadTlsMaterial } from '../src/tls.ts';

export interface Tls {
  cert: string;
  env: Record<string, string>;
}

export async function selfSignedTls(dir: string): Promise<Tls> {
  const material = await loadTlsMaterial(loadConfig({ LABELDESK_DATA_DIR: join(dir, 'tls-home') }));
  const certFile = join(dir, 'cert.pem');
  const keyFile = join(dir, 'key.pem');
  writeFileSync(certFile, material.cert);
  writeFileSync(keyFile, material.key, { mode: 0o600 });
  return { cert: material.cert, env: { TLS_CERT_FILE: certFile, TLS_KEY_FILE: keyFile } };
}
