import { createPrivateKey, type KeyObject, X509Certificate } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { type Config, ConfigError } from './config.ts';

export interface TlsMaterial {
  key: string;
  cert: string;
  /** Where the certificate came from, for the start-up message. */
  certFile: string;
}

function readPem(name: string, file: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? 'unreadable';
    throw new ConfigError(`${name}: cannot read ${file} (${code})`);
  }
}

/** TLS_CERT_FILE and TLS_KEY_FILE, checked so that a bad file is reported by its variable. */
function readOperatorPair(certFile: string, keyFile: string): TlsMaterial {
  const cert = readPem('TLS_CERT_FILE', certFile);
  const key = readPem('TLS_KEY_FILE', keyFile);
  let x509: X509Certificate;
  try {
    x509 = new X509Certificate(cert);
  } catch {
    throw new ConfigError(`TLS_CERT_FILE: ${certFile} is not a PEM certificate`);
  }
  let privateKey: KeyObject;
  try {
    privateKey = createPrivateKey(key);
  } catch {
    throw new ConfigError(`TLS_KEY_FILE: ${keyFile} is not a PEM private key`);
  }
  if (!x509.checkPrivateKey(privateKey)) {
    throw new ConfigError('TLS_CERT_FILE and TLS_KEY_FILE: the key does not belong to the certificate');
  }
  return { cert, key, certFile };
}

/** The operator's pair, or a self-signed one for localhost generated once into the data dir. */
export async function loadTlsMaterial(config: Config): Promise<TlsMaterial> {
  if (config.tlsCertFile && config.tlsKeyFile) {
    return readOperatorPair(config.tlsCertFile, config.tlsKeyFile);
  }
  const dir = join(config.dataDir, 'tls');
  const certFile = join(dir, 'localhost-cert.pem');
  const keyFile = join(dir, 'localhost-key.pem');
  if (!existsSync(certFile) || !existsSync(keyFile)) {
    mkdirSync(dir, { recursive: true });
    // Loaded only to make a certificate, once per data dir: it is large, and every other start skips it.
    const { generate } = await import('selfsigned');
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
