/**
 * Lyrics in three forms: timed lines, LRC text (`[mm:ss.xx] text` per line) and plain text. LRC counts
 * time in centiseconds, so timed lines keep centisecond times too: then lines and LRC convert into
 * each other without loss (83.5 s is `[01:23.50]` and back).
 */
export interface LyricLine {
  /** Seconds from the start of the track, a whole number of centiseconds. */
  readonly time: number;
  readonly text: string;
}

export type LyricsResult = { ok: true; lines: LyricLine[] } | { ok: false; reason: string };

const CENTISECONDS_PER_MINUTE = 6000;
/** One or more leading time tags (several mean the line is sung at each of those times). */
const TIME_TAGS = /^(?:\[\d+:\d{1,2}(?:[.:]\d{1,3})?\])+/;
const TIME_TAG = /\[(\d+):(\d{1,2})(?:[.:](\d{1,3}))?\]/g;
/** An ID tag such as `[ar:Artist]` or `[length:03:20]`: information about the file, not a line. */
const ID_TAG = /^\[([a-zA-Z#]+):(.*)\]$/;

function centiseconds(seconds: number): number {
  return Math.round(seconds * 100);
}

/** `seconds` rounded to the nearest centisecond, the resolution LRC can express. */
export function roundToCentiseconds(seconds: number): number {
  return centiseconds(seconds) / 100;
}

function pad2(value: number): string {
  return String(value).padStart(2, '0');
}

function timeTag(seconds: number): string {
  const total = centiseconds(seconds);
  const minutes = Math.floor(total / CENTISECONDS_PER_MINUTE);
  const rest = total % CENTISECONDS_PER_MINUTE;
  return `[${pad2(minutes)}:${pad2(Math.floor(rest / 100))}.${pad2(rest % 100)}]`;
}

/** Fractions of a second as written: `.5` is 50 cs, `.05` is 5 cs, `.505` (milliseconds) rounds to 51 cs. */
function fractionCentiseconds(digits: string | undefined): number {
  if (digits === undefined) return 0;
  return Math.round(Number(digits.padEnd(3, '0')) / 10);
}

function byTime(a: LyricLine, b: LyricLine): number {
  return a.time - b.time;
}

/**
 * Checks and normalizes timed lines: times finite and not negative, rounded to centiseconds; text
 * trimmed and on one line; the result in time order (a stable sort keeps lines of equal time in order).
 */
export function normalizeLines(lines: readonly LyricLine[]): LyricsResult {
  const normalized: LyricLine[] = [];
  for (const [index, line] of lines.entries()) {
    if (!Number.isFinite(line.time) || line.time < 0) {
      return { ok: false, reason: `line ${index + 1}: time must be a number of seconds, 0 or more` };
    }
    if (/[\r\n]/.test(line.text)) {
      return { ok: false, reason: `line ${index + 1}: text must not contain line breaks` };
    }
    normalized.push({ time: roundToCentiseconds(line.time), text: line.text.trim() });
  }
  return { ok: true, lines: normalized.sort(byTime) };
}

function parseTimes(tags: string): number[] | null {
  const times: number[] = [];
  for (const match of tags.matchAll(TIME_TAG)) {
    const seconds = Number(match[2]);
    if (seconds >= 60) return null;
    const total = Number(match[1]) * CENTISECONDS_PER_MINUTE + seconds * 100 + fractionCentiseconds(match[3]);
    times.push(total / 100);
  }
  return times;
}

/**
 * Parses LRC text into timed lines in time order. Blank lines and ID tags (`[ar:…]`, `[ti:…]`, …)
 * are skipped; a line with several time tags becomes one line per time. `[offset:…]` is refused
 * rather than ignored, since ignoring it would shift every line.
 */
export function parseLrc(lrc: string): LyricsResult {
  const lines: LyricLine[] = [];
  for (const [index, raw] of lrc
    .replace(/^\uFEFF/, '')
    .split(/\r\n|\r|\n/)
    .entries()) {
    const row = raw.trim();
    if (row === '') continue;
    const tags = TIME_TAGS.exec(row)?.[0];
    if (tags === undefined) {
      const idTag = ID_TAG.exec(row);
      if (idTag?.[1]?.toLowerCase() === 'offset' && Number(idTag[2]) !== 0) {
        return {
          ok: false,
          reason: `line ${index + 1}: [offset:] is not supported; shift the times instead`,
        };
      }
      if (idTag) continue;
      return { ok: false, reason: `line ${index + 1}: expected [mm:ss.xx] before the text` };
    }
    const times = parseTimes(tags);
    if (times === null) return { ok: false, reason: `line ${index + 1}: seconds must be below 60` };
    const text = row.slice(tags.length).trim();
    for (const time of times) lines.push({ time, text });
  }
  return { ok: true, lines: lines.sort(byTime) };
}

/** LRC text of timed lines: `[mm:ss.xx] text`, one per line (just the tag when the text is empty). */
export function formatLrc(lines: readonly LyricLine[]): string {
  return lines
    .map((line) => (line.text === '' ? timeTag(line.time) : `${timeTag(line.time)} ${line.text}`))
    .join('\n');
}

/** Plain text of timed lines: their texts, one per line. */
export function linesToText(lines: readonly LyricLine[]): string {
  return lines.map((line) => line.text).join('\n');
}
