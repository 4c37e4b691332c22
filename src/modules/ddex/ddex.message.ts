import { create } from 'xmlbuilder2';
import type { DdexParty } from '../../config.ts';
import type { DdexCredit, DdexFile, DdexRelease, DdexTrack } from './ddex.release.ts';
import {
  AUDIO_CODEC,
  ddexRole,
  IMAGE_CODEC,
  isoDuration,
  parentalWarning,
  RELEASE_TYPE,
  territoryCodes,
} from './ddex.vocabulary.ts';

const ERN_NAMESPACE = 'http://ddex.net/xml/ern/43';
/** The version the allowed-value sets of ERN 4.3 declare (their `AvsVersionId` annotation). */
const AVS_VERSION = '3';

/** A node of xmlbuilder2's object form: child elements by name (arrays repeat), `@` attributes, `#` text. */
type XmlNode = { [name: string]: XmlValue };
type XmlValue = string | number | boolean | XmlNode | XmlNode[] | string[];

export interface MessageHeaderInput {
  readonly messageId: string;
  readonly sender: { readonly id: string; readonly name: string };
  readonly recipient: DdexParty;
  readonly createdAt: Date;
  /** A sandbox's messages are marked as tests. */
  readonly test: boolean;
}

/**
 * The day the deals end: ERN 4 has no takedown flag, a release is withdrawn by deals whose
 * validity period has ended. Absent for a release that is offered.
 */
export interface DealEnd {
  readonly endDate: string;
}

/** Document-local references: parties `P…`, resources `A…`, technical details `T…`, releases `R…`. */
class Parties {
  private readonly byName = new Map<string, string>();

  referenceOf(name: string): string {
    let reference = this.byName.get(name);
    if (!reference) {
      reference = `P${this.byName.size + 1}`;
      this.byName.set(name, reference);
    }
    return reference;
  }

  list(): XmlNode[] {
    return [...this.byName].map(([name, reference]) => ({
      PartyReference: reference,
      PartyName: { FullName: name },
    }));
  }
}

function party(party: DdexParty): XmlNode {
  return { PartyId: party.id, ...(party.name ? { PartyName: { FullName: party.name } } : {}) };
}

function messageHeader(header: MessageHeaderInput): XmlNode {
  return {
    MessageId: header.messageId,
    MessageSender: party(header.sender),
    MessageRecipient: party(header.recipient),
    MessageCreatedDateTime: header.createdAt.toISOString(),
    MessageControlType: header.test ? 'TestMessage' : 'LiveMessage',
  };
}

function displayArtistName(artist: string, featured: readonly string[]): string {
  return featured.length === 0 ? artist : `${artist} feat. ${featured.join(', ')}`;
}

function displayArtists(parties: Parties, artist: string, featured: readonly string[]): XmlNode[] {
  return [
    { name: artist, role: 'MainArtist' },
    ...featured.map((name) => ({ name, role: 'FeaturedArtist' })),
  ].map(({ name, role }, index) => ({
    '@SequenceNumber': index + 1,
    ArtistPartyReference: parties.referenceOf(name),
    DisplayArtistRole: role,
  }));
}

function titleOf(title: string, version: string | null) {
  return {
    DisplayTitleText: version ? `${title} (${version})` : title,
    DisplayTitle: { TitleText: title, ...(version ? { SubTitle: version } : {}) },
  };
}

/** One Contributor per person, with every role a track credits them with (performer and writer alike). */
function contributors(parties: Parties, credits: readonly DdexCredit[]): XmlNode[] {
  const byName = new Map<string, { roles: Set<string>; instruments: Set<string> }>();
  for (const credit of credits) {
    const entry = byName.get(credit.name) ?? { roles: new Set(), instruments: new Set() };
    for (const role of credit.roles.map(ddexRole)) {
      entry.roles.add(role.role);
      if (role.instrument) entry.instruments.add(role.instrument);
    }
    byName.set(credit.name, entry);
  }
  return [...byName].map(([name, { roles, instruments }], index) => ({
    '@SequenceNumber': index + 1,
    ContributorPartyReference: parties.referenceOf(name),
    Role: [...roles],
    ...(instruments.size > 0 ? { InstrumentType: [...instruments] } : {}),
  }));
}

function fileOf(file: DdexFile): XmlNode {
  return {
    URI: file.uri,
    HashSum: { Algorithm: 'SHA-256', HashSumValue: file.sha256 },
    FileSize: file.bytes,
  };
}

/** A takedown sends no files again: the message says so of every file it names. */
function notProvided(end: DealEnd | null): XmlNode {
  return end ? { IsProvidedInDelivery: false } : {};
}

function audioDeliveryFile(track: DdexTrack, end: DealEnd | null): XmlNode {
  const { audio } = track;
  return {
    Type: 'AudioFile',
    AudioCodecType: AUDIO_CODEC[audio.format],
    ...(audio.channels ? { NumberOfChannels: String(audio.channels) } : {}),
    ...(audio.sampleRate ? { SamplingRate: { '@UnitOfMeasure': 'Hz', '#': audio.sampleRate } } : {}),
    ...(audio.bitDepth ? { BitsPerSample: audio.bitDepth } : {}),
    File: fileOf(audio),
    ...notProvided(end),
  };
}

function pLine(release: DdexRelease): XmlNode {
  const year = release.releaseDate.slice(0, 4);
  return { Year: year, PLineCompany: release.labelName, PLineText: `℗ ${year} ${release.labelName}` };
}

function cLine(release: DdexRelease): XmlNode {
  const year = release.releaseDate.slice(0, 4);
  return { Year: year, CLineCompany: release.labelName, CLineText: `© ${year} ${release.labelName}` };
}

function soundRecording(
  parties: Parties,
  release: DdexRelease,
  track: DdexTrack,
  index: number,
  end: DealEnd | null,
): XmlNode {
  return {
    ResourceReference: `A${index + 1}`,
    Type: 'MusicalWorkSoundRecording',
    SoundRecordingEdition: {
      ResourceId: { ISRC: track.isrc },
      PLine: pLine(release),
      TechnicalDetails: {
        TechnicalResourceDetailsReference: `T${index + 1}`,
        DeliveryFile: audioDeliveryFile(track, end),
      },
    },
    ...titleOf(track.title, track.version),
    DisplayArtistName: displayArtistName(release.artist, track.featured),
    DisplayArtist: displayArtists(parties, release.artist, track.featured),
    ...(track.contributors.length + track.writers.length > 0
      ? { Contributor: contributors(parties, [...track.contributors, ...track.writers]) }
      : {}),
    Duration: isoDuration(track.durationSec),
    ParentalWarningType: parentalWarning(track.explicit),
    IsInstrumental: track.instrumental,
    ...(track.language ? { LanguageOfPerformance: track.language } : {}),
  };
}

function frontCover(release: DdexRelease, sender: string, index: number, end: DealEnd | null): XmlNode {
  const { cover } = release;
  return {
    ResourceReference: `A${index + 1}`,
    Type: 'FrontCoverImage',
    ResourceId: { ProprietaryId: { '@Namespace': `DPID:${sender}`, '#': `${release.upc}_cover` } },
    TechnicalDetails: {
      TechnicalResourceDetailsReference: `T${index + 1}`,
      ImageCodecType: IMAGE_CODEC[cover.format],
      ImageHeight: { '@UnitOfMeasure': 'Pixel', '#': cover.height },
      ImageWidth: { '@UnitOfMeasure': 'Pixel', '#': cover.width },
      File: fileOf(cover),
      ...notProvided(end),
    },
  };
}

/** The tracks as the one disc of the release, in track order, and the front cover beside them. */
function resourceGroup(release: DdexRelease): XmlNode {
  return {
    ResourceGroup: {
      '@ResourceGroupType': 'Component',
      SequenceNumber: 1,
      ResourceGroupContentItem: release.tracks.map((_, index) => ({
        SequenceNumber: index + 1,
        ReleaseResourceReference: `A${index + 1}`,
      })),
    },
    ResourceGroupContentItem: { ReleaseResourceReference: `A${release.tracks.length + 1}` },
  };
}

function mainRelease(parties: Parties, release: DdexRelease, labelReference: string): XmlNode {
  const totalSec = release.tracks.reduce((sum, track) => sum + track.durationSec, 0);
  return {
    ReleaseReference: 'R0',
    ReleaseType: RELEASE_TYPE[release.type],
    ReleaseId: { ICPN: release.upc },
    ...titleOf(release.title, release.version),
    DisplayArtistName: displayArtistName(release.artist, release.featured),
    DisplayArtist: displayArtists(parties, release.artist, release.featured),
    ReleaseLabelReference: labelReference,
    PLine: pLine(release),
    CLine: cLine(release),
    Duration: isoDuration(totalSec),
    Genre: { GenreText: release.genre },
    ReleaseDate: release.releaseDate,
    ...(release.originalReleaseDate ? { OriginalReleaseDate: release.originalReleaseDate } : {}),
    ParentalWarningType: parentalWarning(release.tracks.some((track) => track.explicit)),
    ResourceGroup: resourceGroup(release),
  };
}

function trackRelease(
  release: DdexRelease,
  track: DdexTrack,
  index: number,
  labelReference: string,
  sender: string,
) {
  return {
    ReleaseReference: `R${index + 1}`,
    ReleaseId: { ProprietaryId: { '@Namespace': `DPID:${sender}`, '#': `${release.upc}_${track.isrc}` } },
    ...titleOf(track.title, track.version),
    ReleaseResourceReference: `A${index + 1}`,
    ReleaseLabelReference: labelReference,
    Genre: { GenreText: release.genre },
  };
}

/** What a platform may do with the release: stream it (subscription and free tiers) and sell downloads. */
const DEAL_KINDS = [
  {
    models: ['SubscriptionModel', 'AdvertisementSupportedModel'],
    uses: ['OnDemandStream', 'NonInteractiveStream'],
  },
  { models: ['PayAsYouGoModel'], uses: ['PermanentDownload'] },
] as const;

function validityPeriod(release: DdexRelease, end: DealEnd | null): XmlNode {
  if (!end) return { StartDate: release.releaseDate };
  // A release taken down before its day: the period then ends where it starts.
  const start = end.endDate < release.releaseDate ? end.endDate : release.releaseDate;
  return { StartDate: start, EndDate: end.endDate };
}

function dealList(release: DdexRelease, end: DealEnd | null): XmlNode {
  return {
    ReleaseDeal: {
      DealReleaseReference: ['R0', ...release.tracks.map((_, index) => `R${index + 1}`)],
      Deal: DEAL_KINDS.map((kind) => ({
        DealTerms: {
          TerritoryCode: [...territoryCodes(release.territories)],
          ValidityPeriod: validityPeriod(release, end),
          CommercialModelType: [...kind.models],
          UseType: [...kind.uses],
        },
      })),
    },
  };
}

/**
 * A NewReleaseMessage (ERN 4.3, Audio profile) for the release: who sends it to whom, the
 * parties, the sound recordings with their files and the front cover, the release and a track
 * release per track, and the deals, which have ended when `end` is given (a takedown).
 */
export function newReleaseMessage(
  release: DdexRelease,
  header: MessageHeaderInput,
  end: DealEnd | null,
): string {
  const parties = new Parties();
  parties.referenceOf(release.artist);
  const recordings = release.tracks.map((track, index) =>
    soundRecording(parties, release, track, index, end),
  );
  const labelReference = parties.referenceOf(release.labelName);
  const main = mainRelease(parties, release, labelReference);
  const root: XmlNode = {
    '@xmlns:ern': ERN_NAMESPACE,
    '@AvsVersionId': AVS_VERSION,
    '@LanguageAndScriptCode': 'en',
    '@ReleaseProfileVersionId': 'Audio',
    MessageHeader: messageHeader(header),
    PartyList: { Party: parties.list() },
    ResourceList: {
      SoundRecording: recordings,
      Image: frontCover(release, header.sender.id, release.tracks.length, end),
    },
    ReleaseList: {
      Release: main,
      TrackRelease: release.tracks.map((track, index) =>
        trackRelease(release, track, index, labelReference, header.sender.id),
      ),
    },
    DealList: dealList(release, end),
  };
  return create({ version: '1.0', encoding: 'UTF-8' }, { 'ern:NewReleaseMessage': root }).end({
    prettyPrint: true,
  });
}
