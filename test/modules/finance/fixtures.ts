import assert from 'node:assert/strict';
import { updateLabel } from '../../../src/modules/labels/labels.service.ts';
import { givenArtist, givenRelease, givenTrack } from '../../helpers/catalog.ts';
import { call, givenCaller, givenKey, type Harness, json } from '../../helpers/harness.ts';

export const UPC_ONE = '036000291452';
export const UPC_TWO = '0860000000017';
const UPC_OTHER_LABEL = '0860000000024';
export const UPC_NOBODY = '0860000000031';
export const ISRC_ONE = 'USRC17607839';

/**
 * Label One: two payouts (January with a half cent to round, February with fractions of a cent);
 * the other label: one payout at 25 %; one line nobody owns.
 */
export const STATEMENT = [
  'period,upc,isrc,dsp,country,quantity,revenue',
  `2026-01,${UPC_ONE},${ISRC_ONE},Spotify,de,100000,350.00`,
  `2026-01,${UPC_ONE},,apple_music,US,10000,75.005`,
  `2026-02,${UPC_TWO},,spotify,US,10,0.0035`,
  `2026-02,,${ISRC_ONE},YouTube Music,GB,20000,40`,
  `2026-01,${UPC_OTHER_LABEL},,deezer,FR,5000,10.05`,
  `2026-01,${UPC_NOBODY},,tidal,US,5,0.02`,
].join('\n');

export function bytes(text: string): Uint8Array {
  return new TextEncoder().encode(text);
}

export async function givenCatalog(h: Harness) {
  const one = await givenCaller(h, { plan: 'label' });
  const artist = await givenArtist(h, one.label.id);
  const live = { artist_id: artist.id, status: 'live' };
  const first = await givenRelease(h, one.label.id, { ...live, title: 'Night Drive', upc: UPC_ONE });
  const track = await givenTrack(h, one.label.id, first.id, { isrc: ISRC_ONE });
  const second = await givenRelease(h, one.label.id, { ...live, title: 'Tidewater', upc: UPC_TWO });
  // Terms by agreement: the Start plan's 25 % on a plan whose keys may read finance.
  const other = await givenCaller(h, { plan: 'label' });
  await updateLabel(h.ctx, other.label.id, { commission: 0.25 });
  await givenRelease(h, other.label.id, { title: 'Elsewhere', status: 'live', upc: UPC_OTHER_LABEL });
  const financeOnly = await givenKey(h, one.label.id, { scopes: ['finance:read'] });
  return { one, other, first, second, track, financeOnly };
}

export async function read(h: Harness, key: string, url: string) {
  const response = await call(h, 'GET', `/api/v1${url}`, { key });
  assert.equal(response.statusCode, 200, response.body);
  assert.equal(response.headers['cache-control'], 'no-store');
  return { body: json(response) as Record<string, unknown>, headers: response.headers };
}
