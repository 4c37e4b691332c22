/** Streaming platforms, by the keys used everywhere: smart-link targets, platform statuses, reports. */
export const PLATFORMS = [
  { key: 'spotify', name: 'Spotify' },
  { key: 'apple_music', name: 'Apple Music' },
  { key: 'youtube_music', name: 'YouTube Music' },
  { key: 'amazon_music', name: 'Amazon Music' },
  { key: 'deezer', name: 'Deezer' },
  { key: 'tidal', name: 'TIDAL' },
  { key: 'soundcloud', name: 'SoundCloud' },
  { key: 'pandora', name: 'Pandora' },
  { key: 'audiomack', name: 'Audiomack' },
  { key: 'anghami', name: 'Anghami' },
  { key: 'boomplay', name: 'Boomplay' },
  { key: 'napster', name: 'Napster' },
] as const;

export type PlatformKey = (typeof PLATFORMS)[number]['key'];
