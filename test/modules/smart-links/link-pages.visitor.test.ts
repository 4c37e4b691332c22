import assert from 'node:assert/strict';
import type { IncomingHttpHeaders } from 'node:http';
import { test } from 'node:test';
import {
  DEVICES,
  describeVisit,
  isPersonVisit,
} from '../../../src/modules/smart-links/link-pages.visitor.ts';

const UA = {
  iphoneSafari:
    'Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Mobile/15E148 Safari/604.1',
  iphoneInstagram:
    'Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/15E148 Instagram 330.0.0.0 (iPhone15,2; iOS 17_4; en_US; en; scale=3.00; 1179x2556; 590837541)',
  androidChromePhone:
    'Mozilla/5.0 (Linux; Android 10; K) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Mobile Safari/537.36',
  ipad: 'Mozilla/5.0 (iPad; CPU OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Mobile/15E148 Safari/604.1',
  androidTablet:
    'Mozilla/5.0 (Linux; Android 13; SM-X700) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36',
  windowsChrome:
    'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36',
  macSafari:
    'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Safari/605.1.15',
  linuxFirefox: 'Mozilla/5.0 (X11; Linux x86_64; rv:125.0) Gecko/20100101 Firefox/125.0',
  ubuntuFirefox: 'Mozilla/5.0 (X11; Ubuntu; Linux x86_64; rv:125.0) Gecko/20100101 Firefox/125.0',
  chromebook:
    'Mozilla/5.0 (X11; CrOS x86_64 14541.0.0) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36',
  samsungTv:
    'Mozilla/5.0 (SMART-TV; LINUX; Tizen 6.0) AppleWebKit/537.36 (KHTML, like Gecko) 76.0.3809.146/6.0 TV Safari/537.36',
  playstation:
    'Mozilla/5.0 (PlayStation; PlayStation 5/2.26) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/13.0 Safari/605.1.15',
  galaxyWatch:
    'Mozilla/5.0 (Linux; Android 11; SM-R890) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/96.0.4664.104 Mobile Safari/537.36',
};

const BOTS = {
  googlebot: 'Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)',
  facebook: 'facebookexternalhit/1.1 (+http://www.facebook.com/externalhit_uatext.php)',
  twitter: 'Twitterbot/1.0',
  slack: 'Slackbot-LinkExpanding 1.0 (+https://api.slack.com/robots)',
  telegram: 'TelegramBot (like TwitterBot)',
  whatsapp: 'WhatsApp/2.23.20.0 A',
  discord: 'Mozilla/5.0 (compatible; Discordbot/2.0; +https://discordapp.com)',
  linkedin: 'LinkedInBot/1.0 (compatible; Mozilla/5.0; Apache-HttpClient +http://www.linkedin.com)',
  curl: 'curl/8.5.0',
};

const OWN_HOSTS = ['links.example.com', 'localhost:3000'];

function visit(headers: IncomingHttpHeaders, utmSource?: string) {
  return describeVisit(headers, utmSource, OWN_HOSTS);
}

test('people opening the page in a browser count as visits', () => {
  for (const [name, userAgent] of Object.entries(UA)) {
    assert.equal(isPersonVisit('GET', { 'user-agent': userAgent }), true, name);
  }
});

test('crawlers, link-preview fetchers and command-line clients are not visits', () => {
  // curl counts as a bot (isbot says so, and we keep that): a script fetching the page is not a fan.
  for (const [name, userAgent] of Object.entries(BOTS)) {
    assert.equal(isPersonVisit('GET', { 'user-agent': userAgent }), false, name);
  }
});

test('a request without a user agent is not a visit', () => {
  assert.equal(isPersonVisit('GET', {}), false);
  assert.equal(isPersonVisit('GET', { 'user-agent': '' }), false);
  assert.equal(isPersonVisit('GET', { 'user-agent': '   ' }), false);
});

test('HEAD requests are not visits', () => {
  assert.equal(isPersonVisit('HEAD', { 'user-agent': UA.iphoneSafari }), false);
  assert.equal(isPersonVisit('head', { 'user-agent': UA.iphoneSafari }), false);
});

test('prefetches and previews are not visits until someone opens the page', () => {
  const prefetchHeaders: IncomingHttpHeaders[] = [
    { 'sec-purpose': 'prefetch' },
    { 'sec-purpose': 'prefetch;prerender' },
    { purpose: 'prefetch' },
    { 'x-moz': 'prefetch' },
    { 'x-purpose': 'preview' },
    { 'x-purpose': 'Preview' },
  ];
  for (const headers of prefetchHeaders) {
    assert.equal(
      isPersonVisit('GET', { 'user-agent': UA.windowsChrome, ...headers }),
      false,
      JSON.stringify(headers),
    );
  }
  assert.equal(isPersonVisit('GET', { 'user-agent': UA.windowsChrome, 'x-purpose': 'navigate' }), true);
});

test('device comes from the user agent', () => {
  const expected: Record<keyof typeof UA, string> = {
    iphoneSafari: 'mobile',
    iphoneInstagram: 'mobile',
    androidChromePhone: 'mobile',
    ipad: 'tablet',
    androidTablet: 'tablet',
    windowsChrome: 'desktop',
    macSafari: 'desktop',
    linuxFirefox: 'desktop',
    ubuntuFirefox: 'desktop',
    chromebook: 'desktop',
    samsungTv: 'other',
    playstation: 'other',
    galaxyWatch: 'other',
  };
  for (const [name, userAgent] of Object.entries(UA)) {
    assert.equal(visit({ 'user-agent': userAgent }).device, expected[name as keyof typeof UA], name);
  }
});

test('a missing or unrecognisable user agent is an other device', () => {
  assert.equal(visit({}).device, 'other');
  assert.equal(visit({ 'user-agent': 'hello' }).device, 'other');
});

test('the same user agent is classified the same way when asked again', () => {
  for (let i = 0; i < 3; i++) assert.equal(visit({ 'user-agent': UA.ipad }).device, 'tablet');
});

test('DEVICES lists every device class once', () => {
  assert.deepEqual([...DEVICES].sort(), ['desktop', 'mobile', 'other', 'tablet']);
});

test('language is the primary subtag of the most preferred language', () => {
  const cases: [string | undefined, string][] = [
    ['fr-CH, fr;q=0.9, en;q=0.8', 'fr'],
    ['en;q=0.5, de', 'de'],
    ['en-US,en;q=0.9', 'en'],
    ['PT-br', 'pt'],
    ['de;q=0.8, fr;q=0.8', 'de'],
    ['fil', 'fil'],
    ['*', 'unknown'],
    ['*, es;q=0.5', 'es'],
    ['en;q=0, it;q=0.1', 'it'],
    [undefined, 'unknown'],
    ['', 'unknown'],
    ['!!garbage!!', 'unknown'],
    ['en;q=high', 'unknown'],
    ['english', 'unknown'],
    ['x-klingon', 'unknown'],
  ];
  for (const [acceptLanguage, language] of cases) {
    const headers = acceptLanguage === undefined ? {} : { 'accept-language': acceptLanguage };
    assert.equal(visit(headers).language, language, String(acceptLanguage));
  }
});

test('source is the utm_source value when there is one', () => {
  assert.equal(visit({ referer: 'https://www.instagram.com/' }, '  Newsletter ').source, 'newsletter');
  assert.equal(visit({}, 'x'.repeat(100)).source, 'x'.repeat(64));
});

test('an empty utm_source falls back to the referer', () => {
  assert.equal(visit({ referer: 'https://t.co/abc' }, '   ').source, 't.co');
  assert.equal(visit({ referer: 'https://t.co/abc' }, '').source, 't.co');
});

test('source is the referring host without www', () => {
  assert.equal(visit({ referer: 'https://www.Instagram.com/p/xyz?igsh=1' }).source, 'instagram.com');
  assert.equal(visit({ referer: 'http://l.facebook.com/l.php?u=x' }).source, 'l.facebook.com');
});

test('our own pages, invalid referers and no referer count as direct', () => {
  const referers = [
    'https://links.example.com/other-link',
    'https://www.links.example.com/',
    'http://localhost:3000/l/abc',
    'not a url',
    'android-app://com.google.android.gm/',
    'file:///home/me/page.html',
    '',
  ];
  for (const referer of referers) assert.equal(visit({ referer }).source, 'direct', referer);
  assert.equal(visit({}).source, 'direct');
  assert.equal(visit({ referer: 'http://localhost:4000/' }).source, 'localhost');
});
