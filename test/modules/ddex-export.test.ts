import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { type TestContext, test } from 'node:test';
import { STEREO_CD } from '../helpers/audio.ts';
import {
  assertValidErn,
  change,
  child,
  children,
  DDEX_ENV,
  givenApprovedRelease,
  parseXml,
  RECIPIENT,
  SENDER,
  type XmlObject,
} from '../helpers/ddex.ts';
import { buildHarness, call, givenCaller, type Harness, json } from '../helpers/harness.ts';
import { card, type DraftInput, givenDraft, noiseWav } from '../helpers/pipeline.ts';

function sha256(bytes: Buffer): string {
  return createHash('sha256').update(bytes).digest('hex');
}

async function exported(h: Harness, key: string, releaseId: number, query = ''): Promise<XmlObject> {
  const response = await call(h, 'GET', `/api/v1/releases/${releaseId}/ddex${query}`, { key });
  assert.equal(response.statusCode, 200, response.body);
  assert.equal(response.headers['content-type'], 'application/xml; charset=utf-8');
  assertValidErn(response.body);
  return child(parseXml(response.body), 'ern:NewReleaseMessage');
}

async function artistName(h: Harness, key: string, releaseId: number): Promise<string> {
  const release = await card(h, key, releaseId);
  return (release.artist as { name: string }).name;
}

/** The parties by reference: `P1` -> name. */
function partyNames(message: XmlObject): Map<string, string> {
  return new Map(
    children(child(message, 'PartyList'), 'Party').map((party) => [
      String(party.PartyReference),
      String(child(party, 'PartyName').FullName),
    ]),
  );
}

function displayArtists(resource: XmlObject, parties: Map<string, string>) {
  return children(resource, 'DisplayArtist').map((artist) => ({
    name: parties.get(String(artist.ArtistPartyReference)),
    role: artist.DisplayArtistRole,
  }));
}

function contributorsOf(recording: XmlObject, parties: Map<string, string>) {
  return children(recording, 'Contributor').map((contributor) => ({
    name: parties.get(String(contributor.ContributorPartyReference)),
    roles: contributor.Role,
    ...(contributor.InstrumentType ? { instruments: contributor.InstrumentType } : {}),
  }));
}

/** A single with a version, explicit and in English, approved; the release as GET /ddex answers it. */
async function givenExportedSingle(t: TestContext) {
  const h = await buildHarness(t, { env: DDEX_ENV });
  const { key } = await givenCaller(h);
  const audio = noiseWav(STEREO_CD, 7);
  const { releaseId, upc, isrcs, trackIds } = await givenApprovedRelease(
    h,
    key,
    { type: 'single', title: 'Night Drive', tracks: [{ title: 'Night Drive', audio }] },
    async ({ releaseId: id, trackIds: [trackId] }) => {
      await change(h, key, 'PATCH', `/api/v1/releases/${id}/tracks/${trackId}`, {
        version: 'Radio Edit',
        explicit: true,
        language: 'en',
      });
    },
  );
  const message = await exported(h, key, releaseId);
  return { h, key, audio, releaseId, upc, isrcs, trackIds, message };
}

test('a single: header from the operator to the default recipient, parties, the recording with its file and hash', async (t) => {
  const { h, key, audio, releaseId, upc, isrcs, message } = await givenExportedSingle(t);
  const response = await call(h, 'GET', `/api/v1/releases/${releaseId}/ddex`, { key });
  assert.equal(response.headers['content-disposition'], `inline; filename="${upc}.xml"`);
  assert.deepEqual(
    {
      avs: message['@AvsVersionId'],
      language: message['@LanguageAndScriptCode'],
      profile: message['@ReleaseProfileVersionId'],
    },
    { avs: '3', language: 'en', profile: 'Audio' },
  );
  const header = child(message, 'MessageHeader');
  assert.match(String(header.MessageId), /^[0-9a-f-]{36}$/);
  assert.deepEqual(header, {
    MessageId: header.MessageId,
    MessageSender: { PartyId: SENDER.id, PartyName: { FullName: SENDER.name } },
    MessageRecipient: { PartyId: RECIPIENT.id, PartyName: { FullName: RECIPIENT.name } },
    MessageCreatedDateTime: h.clock.now().toISOString(),
    MessageControlType: 'LiveMessage',
  });
  const artist = await artistName(h, key, releaseId);
  assert.deepEqual(
    [...partyNames(message)],
    [
      ['P1', artist],
      ['P2', 'Ari Lund'],
      ['P3', 'Northern Lights Records'],
    ],
  );
  const recording = child(child(message, 'ResourceList'), 'SoundRecording');
  assert.deepEqual(recording, {
    ResourceReference: 'A1',
    Type: 'MusicalWorkSoundRecording',
    SoundRecordingEdition: {
      ResourceId: { ISRC: isrcs[0] },
      PLine: {
        Year: '2027',
        PLineCompany: 'Northern Lights Records',
        PLineText: '℗ 2027 Northern Lights Records',
      },
      TechnicalDetails: {
        TechnicalResourceDetailsReference: 'T1',
        DeliveryFile: {
          Type: 'AudioFile',
          AudioCodecType: 'PCM',
          NumberOfChannels: '2',
          SamplingRate: { '@UnitOfMeasure': 'Hz', '#': '44100' },
          BitsPerSample: '16',
          File: {
            URI: `resources/${upc}_01_001.wav`,
            HashSum: { Algorithm: 'SHA-256', HashSumValue: sha256(audio) },
            FileSize: String(audio.length),
          },
        },
      },
    },
    DisplayTitleText: 'Night Drive (Radio Edit)',
    DisplayTitle: { TitleText: 'Night Drive', SubTitle: 'Radio Edit' },
    DisplayArtistName: artist,
    DisplayArtist: { '@SequenceNumber': '1', ArtistPartyReference: 'P1', DisplayArtistRole: 'MainArtist' },
    Contributor: { '@SequenceNumber': '1', ContributorPartyReference: 'P2', Role: 'StudioProducer' },
    Duration: 'PT0M1S',
    ParentalWarningType: 'Explicit',
    IsInstrumental: 'false',
    LanguageOfPerformance: 'en',
  });
});

test('a single: the cover, the release with its disc and track releases, streaming and download deals', async (t) => {
  const { upc, trackIds, message } = await givenExportedSingle(t);
  const image = child(child(message, 'ResourceList'), 'Image');
  assert.equal(image.Type, 'FrontCoverImage');
  const imageDetails = child(image, 'TechnicalDetails');
  assert.equal(child(imageDetails, 'File').URI, `resources/${upc}.png`);
  assert.deepEqual(imageDetails.ImageWidth, { '@UnitOfMeasure': 'Pixel', '#': '1400' });

  const releases = child(message, 'ReleaseList');
  const release = child(releases, 'Release');
  assert.deepEqual(
    {
      type: release.ReleaseType,
      id: release.ReleaseId,
      title: release.DisplayTitleText,
      label: release.ReleaseLabelReference,
      genre: release.Genre,
      date: release.ReleaseDate,
      warning: release.ParentalWarningType,
      group: release.ResourceGroup,
    },
    {
      type: 'Single',
      id: { ICPN: upc },
      title: 'Night Drive',
      label: 'P3',
      genre: { GenreText: 'Pop' },
      date: '2027-03-01',
      warning: 'Explicit',
      group: {
        ResourceGroup: {
          '@ResourceGroupType': 'Component',
          SequenceNumber: '1',
          ResourceGroupContentItem: { SequenceNumber: '1', ReleaseResourceReference: 'A1' },
        },
        ResourceGroupContentItem: { ReleaseResourceReference: 'A2' },
      },
    },
  );
  assert.equal(children(releases, 'TrackRelease').length, trackIds.length);
  const deal = child(child(message, 'DealList'), 'ReleaseDeal');
  assert.deepEqual(deal.DealReleaseReference, ['R0', 'R1']);
  assert.deepEqual(
    children(deal, 'Deal').map((entry) => child(entry, 'DealTerms')),
    [
      {
        TerritoryCode: 'Worldwide',
        ValidityPeriod: { StartDate: '2027-03-01' },
        CommercialModelType: ['SubscriptionModel', 'AdvertisementSupportedModel'],
        UseType: ['OnDemandStream', 'NonInteractiveStream'],
      },
      {
        TerritoryCode: 'Worldwide',
        ValidityPeriod: { StartDate: '2027-03-01' },
        CommercialModelType: 'PayAsYouGoModel',
        UseType: 'PermanentDownload',
      },
    ],
  );
});

test('an EP with featured artists, contributors and writers: DDEX display roles and contributor roles, one party per person', async (t) => {
  const h = await buildHarness(t, { env: DDEX_ENV });
  const { key } = await givenCaller(h);
  const input: DraftInput = { type: 'ep', title: 'Tidal', featuredArtists: ['Lena Hart'] };
  const { releaseId } = await givenApprovedRelease(h, key, input, async (draft) => {
    await change(h, key, 'PUT', `/api/v1/releases/${draft.releaseId}/tracks/${draft.trackIds[0]}/credits`, {
      featured: [{ name: 'Kofi Mensah' }],
      contributors: [
        { name: 'Ari Lund', role: 'Producer' },
        { name: 'Sam Ode', role: 'Guitar' },
        { name: 'Sam Ode', role: 'Бас-гитара' },
      ],
      writers: [
        { name: 'Mira Cole', roles: ['Composer', 'Lyricist'] },
        { name: 'Jon Park', roles: ['Songwriter'] },
        { name: 'Ari Lund', roles: ['Instrumentalist'] },
      ],
    });
  });
  const message = await exported(h, key, releaseId);
  const artist = await artistName(h, key, releaseId);
  const parties = partyNames(message);
  assert.deepEqual(
    [...parties.values()],
    [
      artist,
      'Kofi Mensah',
      'Ari Lund',
      'Sam Ode',
      'Mira Cole',
      'Jon Park',
      'Northern Lights Records',
      'Lena Hart',
    ],
  );
  const [first, second] = children(child(message, 'ResourceList'), 'SoundRecording');
  assert.ok(first && second);
  assert.equal(first.DisplayArtistName, `${artist} feat. Kofi Mensah`);
  assert.deepEqual(displayArtists(first, parties), [
    { name: artist, role: 'MainArtist' },
    { name: 'Kofi Mensah', role: 'FeaturedArtist' },
  ]);
  assert.deepEqual(contributorsOf(first, parties), [
    { name: 'Ari Lund', roles: ['StudioProducer', 'Composer'] },
    { name: 'Sam Ode', roles: 'Musician', instruments: ['Guitar', 'Bass'] },
    { name: 'Mira Cole', roles: ['Composer', 'Lyricist'] },
    { name: 'Jon Park', roles: 'ComposerLyricist' },
  ]);
  assert.equal(second.DisplayArtistName, artist);
  assert.deepEqual(contributorsOf(second, parties), [{ name: 'Ari Lund', roles: 'StudioProducer' }]);
  const release = child(child(message, 'ReleaseList'), 'Release');
  assert.equal(release.ReleaseType, 'EP');
  assert.equal(release.DisplayArtistName, `${artist} feat. Lena Hart`);
  assert.deepEqual(displayArtists(release, parties), [
    { name: artist, role: 'MainArtist' },
    { name: 'Lena Hart', role: 'FeaturedArtist' },
  ]);
  assert.deepEqual(
    children(child(child(release, 'ResourceGroup'), 'ResourceGroup'), 'ResourceGroupContentItem'),
    [
      { SequenceNumber: '1', ReleaseResourceReference: 'A1' },
      { SequenceNumber: '2', ReleaseResourceReference: 'A2' },
    ],
  );
});

test('an album with non-Latin titles and listed territories keeps every script and offers the deals there only', async (t) => {
  const h = await buildHarness(t, { env: DDEX_ENV });
  const { key } = await givenCaller(h);
  const titles = ['Ночной город', '夜の街', 'شارع الليل'];
  const { releaseId, upc, isrcs } = await givenApprovedRelease(
    h,
    key,
    {
      type: 'album',
      title: 'Город огней',
      tracks: titles.map((title, index) => ({ title, audio: noiseWav(STEREO_CD, index + 11) })),
    },
    async (draft) => {
      await change(h, key, 'PATCH', `/api/v1/releases/${draft.releaseId}`, {
        territories: ['RU', 'JP', 'AE'],
        version: 'Делюкс',
      });
    },
  );
  const message = await exported(
    h,
    key,
    releaseId,
    `?recipient_id=${'PADPIDA2099020202Y'}&recipient_name=Другой%20сервис`,
  );
  assert.deepEqual(child(child(message, 'MessageHeader'), 'MessageRecipient'), {
    PartyId: 'PADPIDA2099020202Y',
    PartyName: { FullName: 'Другой сервис' },
  });
  const recordings = children(child(message, 'ResourceList'), 'SoundRecording');
  assert.deepEqual(
    recordings.map((recording) => ({
      title: recording.DisplayTitleText,
      isrc: child(child(recording, 'SoundRecordingEdition'), 'ResourceId').ISRC,
      uri: child(
        child(child(child(recording, 'SoundRecordingEdition'), 'TechnicalDetails'), 'DeliveryFile'),
        'File',
      ).URI,
    })),
    titles.map((title, index) => ({
      title,
      isrc: isrcs[index],
      uri: `resources/${upc}_01_00${index + 1}.wav`,
    })),
  );
  const releases = child(message, 'ReleaseList');
  const release = child(releases, 'Release');
  assert.equal(release.ReleaseType, 'Album');
  assert.equal(release.DisplayTitleText, 'Город огней (Делюкс)');
  assert.deepEqual(release.DisplayTitle, { TitleText: 'Город огней', SubTitle: 'Делюкс' });
  assert.deepEqual(
    children(releases, 'TrackRelease').map((track) => [track.ReleaseReference, track.DisplayTitleText]),
    titles.map((title, index) => [`R${index + 1}`, title]),
  );
  for (const deal of children(child(child(message, 'DealList'), 'ReleaseDeal'), 'Deal')) {
    assert.deepEqual(child(deal, 'DealTerms').TerritoryCode, ['RU', 'JP', 'AE']);
  }
});

test('a release without its UPC and ISRCs answers 409 conflict with the problems', async (t) => {
  const h = await buildHarness(t, { env: DDEX_ENV });
  const { key } = await givenCaller(h);
  const { releaseId } = await givenDraft(h, key);
  const response = await call(h, 'GET', `/api/v1/releases/${releaseId}/ddex`, { key });
  assert.equal(response.statusCode, 409, response.body);
  assert.deepEqual(json(response), {
    error:
      'The release cannot be described in DDEX yet: The release has no UPC yet: it gets one when it is approved',
    code: 'conflict',
    problems: [
      { field: 'upc', message: 'The release has no UPC yet: it gets one when it is approved' },
      {
        field: 'tracks.0.isrc',
        message: 'Track 1 has no ISRC yet: it gets one when the release is approved',
      },
      {
        field: 'tracks.1.isrc',
        message: 'Track 2 has no ISRC yet: it gets one when the release is approved',
      },
    ],
  });
});

test('another label’s release is 404, a key without catalog:read is 403', async (t) => {
  const h = await buildHarness(t, { env: DDEX_ENV });
  const { key } = await givenCaller(h);
  const other = await givenCaller(h);
  const { releaseId } = await givenDraft(h, key);
  const foreign = await call(h, 'GET', `/api/v1/releases/${releaseId}/ddex`, { key: other.key });
  assert.equal(foreign.statusCode, 404, foreign.body);
  assert.deepEqual(json(foreign), { error: 'Release not found', code: 'not_found' });
  const writer = await givenCaller(h, { scopes: ['catalog:write'] });
  const refused = await call(h, 'GET', `/api/v1/releases/${releaseId}/ddex`, { key: writer.key });
  assert.equal(refused.statusCode, 403, refused.body);
  assert.equal((json(refused) as { required_scope: string }).required_scope, 'catalog:read');
});

test('the recipient: required where the server has none, a DPID, and its name goes with its id', async (t) => {
  const { DDEX_RECIPIENT_ID: _id, DDEX_RECIPIENT_NAME: _name, ...noRecipient } = DDEX_ENV;
  const h = await buildHarness(t, { env: noRecipient });
  const { key } = await givenCaller(h);
  const { releaseId } = await givenDraft(h, key);
  const cases = [
    [
      '',
      'recipient_id',
      'recipient_id is required: this server has no default recipient (DDEX_RECIPIENT_ID)',
    ],
    [
      '?recipient_name=Shop',
      'recipient_name',
      'recipient_name goes with recipient_id, the recipient’s DDEX Party ID',
    ],
  ] as const;
  for (const [query, field, error] of cases) {
    const response = await call(h, 'GET', `/api/v1/releases/${releaseId}/ddex${query}`, { key });
    assert.equal(response.statusCode, 400, response.body);
    assert.deepEqual(json(response), { error, code: 'invalid', field });
  }
  const malformed = await call(h, 'GET', `/api/v1/releases/${releaseId}/ddex?recipient_id=SPOTIFY`, { key });
  assert.equal(malformed.statusCode, 400, malformed.body);
  assert.equal((json(malformed) as { field: string }).field, 'recipient_id');
});

test('a server without DDEX_PARTY_ID answers 503 unavailable', async (t) => {
  const h = await buildHarness(t, { env: { MODERATION: 'manual' } });
  const { key } = await givenCaller(h);
  const { releaseId } = await givenDraft(h, key);
  const response = await call(h, 'GET', `/api/v1/releases/${releaseId}/ddex?recipient_id=${RECIPIENT.id}`, {
    key,
  });
  assert.equal(response.statusCode, 503, response.body);
  assert.deepEqual(json(response), {
    error: 'DDEX export is not set up on this server: the operator sets DDEX_PARTY_ID and DDEX_PARTY_NAME',
    code: 'unavailable',
  });
});

test('a sandbox release exports as a TestMessage', async (t) => {
  const h = await buildHarness(t, { env: DDEX_ENV });
  const { key } = await givenCaller(h, { sandbox: true });
  const { releaseId } = await givenDraft(h, key, {
    type: 'single',
    tracks: [{ title: 'Night Drive', audio: noiseWav() }],
  });
  const submitted = await call(h, 'POST', `/api/v1/releases/${releaseId}/submit`, {
    key,
    payload: { confirm_rights: true },
  });
  assert.equal(submitted.statusCode, 202, submitted.body);
  const message = await exported(h, key, releaseId);
  assert.equal(child(message, 'MessageHeader').MessageControlType, 'TestMessage');
});
