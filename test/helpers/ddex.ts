import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { convert } from 'xmlbuilder2';
import { decide } from '../../src/modules/moderation/moderation.service.ts';
import { call, type Harness, json } from './harness.ts';
import { type DraftInput, givenDraft, submit } from './pipeline.ts';

/**
 * The folder holding DDEX's official ERN 4.3 schema (`release-notification.xsd` and the
 * `allowed-value-sets.xsd` it imports): DDEX's licence keeps it out of this repository, so whoever
 * runs the tests names it.
 */
const SCHEMA_DIR = process.env.TEST_DDEX_SCHEMA_DIR ?? null;
const ERN_SCHEMA = SCHEMA_DIR === null ? null : join(SCHEMA_DIR, 'release-notification.xsd');

export const SENDER = { id: 'PADPIDA2026112701L', name: 'Labeldesk Distribution' };
export const RECIPIENT = { id: 'PADPIDA2099010101X', name: 'Example Music Service' };

/** A server that sends DDEX messages from SENDER to RECIPIENT; moderation waits for an operator. */
export const DDEX_ENV = {
  MODERATION: 'manual',
  DDEX_PARTY_ID: SENDER.id,
  DDEX_PARTY_NAME: SENDER.name,
  DDEX_RECIPIENT_ID: RECIPIENT.id,
  DDEX_RECIPIENT_NAME: RECIPIENT.name,
};

/** Why messages cannot be validated here (a skip reason), or false when they can. */
function validationUnavailable(): string | false {
  if (ERN_SCHEMA === null) {
    return 'TEST_DDEX_SCHEMA_DIR is not set (the folder with the official ERN 4.3 release-notification.xsd)';
  }
  if (!existsSync(ERN_SCHEMA)) return `TEST_DDEX_SCHEMA_DIR has no ${ERN_SCHEMA}`;
  if (spawnSync('xmllint', ['--version']).error) {
    return 'xmllint is not installed (apt-get install libxml2-utils)';
  }
  return false;
}

const unavailable = validationUnavailable();
if (unavailable)
  process.emitWarning(`DDEX messages are not checked against the ERN 4.3 schema: ${unavailable}`);

/**
 * Asserts that the official schema and its allowed-value sets accept the message (xmllint
 * --schema); where the schema or xmllint is missing, says so once and checks nothing, so that every
 * other assertion of the DDEX tests still runs.
 */
export function assertValidErn(xml: string): void {
  if (unavailable || ERN_SCHEMA === null) return;
  const dir = mkdtempSync(join(tmpdir(), 'labeldesk-ddex-'));
  try {
    const file = join(dir, 'message.xml');
    writeFileSync(file, xml);
    const result = spawnSync('xmllint', ['--noout', '--schema', ERN_SCHEMA, file], { encoding: 'utf8' });
    assert.equal(result.status, 0, `xmllint refused the message:\n${result.stderr}`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** A parsed message: elements by name, repeated ones as arrays, attributes as `@name`, text under `#` when mixed. */
export type XmlObject = { [name: string]: XmlObject | XmlObject[] | string };

export function parseXml(xml: string): XmlObject {
  return convert(xml, { format: 'object' }) as unknown as XmlObject;
}

/** The element's children; fails when `name` is missing or a text. */
export function child(node: XmlObject, name: string): XmlObject {
  const value = node[name];
  assert.ok(value && typeof value === 'object' && !Array.isArray(value), `<${name}> is one element`);
  return value;
}

/** The elements named `name`, one or many. */
export function children(node: XmlObject, name: string): XmlObject[] {
  const value = node[name];
  if (value === undefined) return [];
  assert.ok(typeof value === 'object', `<${name}> holds elements`);
  return Array.isArray(value) ? value : [value];
}

/** A draft made through HTTP, shaped by `shape` (credits, metadata), submitted and approved by the operator. */
export async function givenApprovedRelease(
  h: Harness,
  key: string,
  input: DraftInput,
  shape: (ids: { releaseId: number; trackIds: number[] }) => Promise<void> = async () => {},
): Promise<{ releaseId: number; trackIds: number[]; upc: string; isrcs: string[] }> {
  const draft = await givenDraft(h, key, input);
  await shape(draft);
  const submitted = await submit(h, key, draft.releaseId);
  assert.equal(submitted.statusCode, 202, submitted.body);
  await decide(h.ctx, draft.releaseId, { approve: true, comment: 'Approved' });
  const card = await call(h, 'GET', `/api/v1/releases/${draft.releaseId}`, { key });
  const release = (json(card) as { release: { upc: string; tracks: Array<{ isrc: string }> } }).release;
  return { ...draft, upc: release.upc, isrcs: release.tracks.map((track) => track.isrc) };
}

/** Sends `payload` and expects 200: the shaping calls of a fixture. */
export async function change(h: Harness, key: string, method: 'PATCH' | 'PUT', url: string, payload: object) {
  const response = await call(h, method, url, { key, payload });
  assert.equal(response.statusCode, 200, `${method} ${url}: ${response.body}`);
}
