import { parseFile } from 'music-metadata';

/**
 * The cheap evidence: a tag naming the lossy encoder a WAV or FLAC was decoded from (see
 * moderation.lossy.ts for what counts and what does not).
 */

/**
 * Lossy encoders as they sign their work in tags. LAME always signs in capitals ("LAME3.100"), and
 * is matched case-sensitively so that a free comment saying "lame 2" is not taken for it.
 */
const LAME = /\bLAME\s*v?\d/;
const LOSSY_ENCODER =
  /\blibmp3lame\b|\bLavc[\d.]*\s+(?:mp3\w*|mp2|aac\w*|libfdk_aac|libvorbis|vorbis|libopus|opus)\b|\bFraunhofer\b|\bNero\s*AAC|\bFAAC\b|\bqaac\b|\blibVorbis\b|\blibopus\b|(?:^|[\s,;])A=(?:MPEG|AAC|AC-?3|ATRAC|VORBIS|OPUS|WMA)/i;
/** Tags that carry the encoder, the software or free comments; titles and names are not looked at. */
const ENCODER_TAG_ID =
  /^(?:ISFT|CODE|ICMT|TSSE|TENC|TSS|TEN|COMM(?::.*)?|COMMENT|DESCRIPTION|ENCODER|ENCODED[-_ ]?BY|ENCODING|ENCODER[-_ ]?(?:SETTINGS|OPTIONS)|TXXX:(?:ENCODER|ENCODED[-_ ]?BY|ENCODING|SOFTWARE|TOOL).*|bext\.(?:description|originator|codingHistory))$/i;
/** The gapless-playback tag of MP3/AAC encoders (iTunes, LAME front ends): absent from PCM masters. */
const ITUNSMPB = /itunsmpb/i;
const MAX_QUOTED_TAG = 60;

function textOf(value: unknown): string | null {
  if (typeof value === 'string') return value;
  if (typeof value === 'object' && value !== null && 'text' in value && typeof value.text === 'string') {
    return value.text;
  }
  return null;
}

function quoted(text: string): string {
  const clean = text.replace(/[\p{Cc}\s]+/gu, ' ').trim();
  return clean.length > MAX_QUOTED_TAG ? `${clean.slice(0, MAX_QUOTED_TAG - 1)}…` : clean;
}

/**
 * The first tag naming a lossy encoder, or null. Unreadable tags are no evidence. A WAV's BWF
 * coding history comes from the caller, which has walked the chunks (music-metadata skips it).
 */
export async function lossyEncoderTag(path: string, codingHistory: string | null): Promise<string | null> {
  let metadata: Awaited<ReturnType<typeof parseFile>>;
  try {
    metadata = await parseFile(path, { skipCovers: true, duration: false });
  } catch {
    return null;
  }
  const candidates: string[] = [];
  if (metadata.format.tool) candidates.push(metadata.format.tool);
  for (const tags of Object.values(metadata.native)) {
    for (const { id, value } of tags) {
      if (ITUNSMPB.test(id)) return 'iTunSMPB';
      const text = textOf(value);
      if (text !== null && ENCODER_TAG_ID.test(id)) candidates.push(text);
    }
  }
  if (codingHistory !== null) candidates.push(codingHistory);
  // Line by line, so a coding history or a long comment is quoted by the line that names the codec.
  const found = candidates
    .flatMap((text) => text.split(/[\r\n]+/))
    .find((line) => LAME.test(line) || LOSSY_ENCODER.test(line));
  return found === undefined ? null : quoted(found);
}
