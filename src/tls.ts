import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { generate } from 'selfsigned';
import type { Config } from './config.ts';

export interface TlsMaterial {
  key: string;
  cert: string;
  /** Where the certificate came from, for the start-up message. */
  certFile: string;
}

/** The operator's pair, or a self-signed one for localhost generated once into the data dir. */
export async function loadTlsMaterial(config: Config): Promise<TlsMaterial> {
  if (config.tlsCertFile && config.tlsKeyFile) {
    return {
      cert: readFileSync(config.tlsCertFile, 'utf8'),
      key: readFileSync(config.tlsKeyFile, 'utf8'),
      certFile: config.tlsCertFile,
    };
  }
  const dir = join(config.dataDir, 'tls');
  const certFile = join(dir, 'localhost-cert.pem');
  const keyFile = join(dir, 'localhost-key.pem');
  if (!existsSync(certFile) || !existsSync(keyFile)) {
    mkdirSync(dir, { recursive: true });
    const pems = await generate([{ name: 'commonName', value: 'localhost' }], {
      keyType: 'ec',
      curve: 'P-256',
      algorithm: 'sha256',
      notAfterDate: new Date(Date.now() + 825 * 24 * 3600 * 1000),
      extensions: [
        { name: 'basicConstraints', cA: false },
        { name: 'keyUsage', digitalSignature: true, keyEncipherment: true },
        { name: 'extKeyUsage', serverAuth: true },
        {
          name: 'subjectAltName',
          altNames: [
            { type: 2, value: 'localhost' },
            { type: 7, ip: '127.0.0.1' },
            { type: 7, ip: '::1' },
          ],
        },
      ],
    });
    writeFileSync(keyFile, pems.private, { mode: 0o600 });
    writeFileSync(certFile, pems.cert);
  }
  return { cert: readFileSync(certFile, 'utf8'), key: readFileSync(keyFile, 'utf8'), certFile };
}
