/**
 * Streaming platforms, by the keys used everywhere: smart-link targets, platform statuses, reports.
 * `search` is the platform's public search address for a query; it stands in for a store link when
 * a live report carries no address of its own (the simulated distributor sends none).
 */
export const PLATFORMS = [
  { key: 'spotify', name: 'Spotify', search: 'https://open.spotify.com/search/' },
  { key: 'apple_music', name: 'Apple Music', search: 'https://music.apple.com/search?term=' },
  { key: 'youtube_music', name: 'YouTube Music', search: 'https://music.youtube.com/search?q=' },
  { key: 'amazon_music', name: 'Amazon Music', search: 'https://music.amazon.com/search/' },
  { key: 'deezer', name: 'Deezer', search: 'https://www.deezer.com/search/' },
  { key: 'tidal', name: 'TIDAL', search: 'https://listen.tidal.com/search?q=' },
  { key: 'soundcloud', name: 'SoundCloud', search: 'https://soundcloud.com/search?q=' },
  { key: 'pandora', name: 'Pandora', search: 'https://www.pandora.com/search/' },
  { key: 'audiomack', name: 'Audiomack', search: 'https://audiomack.com/search?q=' },
  { key: 'anghami', name: 'Anghami', search: 'https://play.anghami.com/search/' },
  { key: 'boomplay', name: 'Boomplay', search: 'https://www.boomplay.com/search/default/' },
  { key: 'napster', name: 'Napster', search: 'https://web.napster.com/search?query=' },
] as const;

export type PlatformKey = (typeof PLATFORMS)[number]['key'];

export const PLATFORM_KEYS: readonly PlatformKey[] = PLATFORMS.map((platform) => platform.key);

export function isPlatformKey(key: string): key is PlatformKey {
  return (PLATFORM_KEYS as readonly string[]).includes(key);
}

function platformOf(key: string) {
  return PLATFORMS.find((candidate) => candidate.key === key);
}

/** The platform's display name ("Apple Music"); the key itself for a key no longer in the list. */
export function platformName(key: string): string {
  return platformOf(key)?.name ?? key;
}

/** The platform's search page for `query` (a UPC finds the release on every one of them). */
export function platformSearchUrl(key: PlatformKey, query: string): string {
  return `${platformOf(key)?.search ?? ''}${encodeURIComponent(query)}`;
}
