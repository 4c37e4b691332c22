// The package runs in a browser: src/index.ts bundled by esbuild for the browser platform (a Node-only
// import would not resolve) and loaded into Chromium, whose Web Crypto verifies a body the server's own
// signer signed, and refuses it changed or under another secret.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { signatureHeader } from '../../../src/modules/webhooks/webhooks.sender.ts';
import {
  type Cleanups,
  chromiumMissing,
  launchChromium,
} from '../../../test/modules/smart-links/link-pages.browser.fixtures.ts';

/** src/index.ts for the browser, as a script that sets `window.Labeldesk`. */
async function browserBundle(): Promise<string> {
  const result = await build({
    entryPoints: [fileURLToPath(new URL('../src/index.ts', import.meta.url))],
    bundle: true,
    platform: 'browser',
    format: 'iife',
    globalName: 'Labeldesk',
    target: 'es2022',
    write: false,
    logLevel: 'silent',
  });
  return result.outputFiles[0]?.text ?? '';
}

test('the browser bundle verifies a delivery signed by the server in Chromium', {
  skip: chromiumMissing() ?? false,
}, async () => {
  const code = await browserBundle();
  const secret = 'svcwh_browser-secret';
  const body = JSON.stringify({
    id: '5b0e7f6a-0000-4000-8000-000000000001',
    event: 'webhook.test',
    created_at: new Date().toISOString(),
    data: { message: 'Grüße aus Tōkyō: a test' },
  });
  const header = signatureHeader(secret, Math.floor(Date.now() / 1000), body);

  const cleanups: Cleanups = [];
  try {
    const browser = await launchChromium(cleanups);
    const page = await browser.newPage();
    // An https page (intercepted, never fetched) is a secure context, where Web Crypto is available.
    await page.route('https://client.test/', (route) =>
      route.fulfill({ contentType: 'text/html', body: '<!doctype html><title>client</title>' }),
    );
    await page.goto('https://client.test/');
    await page.addScriptTag({ content: code });
    // Sent as text: a function given to evaluate() would carry the helpers tsx adds to the test's code.
    const outcomes = await page.evaluate(`(async () => {
      const { verifyWebhook, WebhookVerificationError } = window.Labeldesk;
      const [body, header, secret] = ${JSON.stringify([body, header, secret])};
      const outcome = (work) =>
        work.then(
          (event) => 'accepted: ' + event.data.message,
          (error) => (error instanceof WebhookVerificationError ? 'refused: ' + error.reason : String(error)),
        );
      return [
        await outcome(verifyWebhook(body, header, secret)),
        await outcome(verifyWebhook(new TextEncoder().encode(body), header, secret)),
        await outcome(verifyWebhook(body.replace('a test', 'a tesT'), header, secret)),
        await outcome(verifyWebhook(body, header, 'svcwh_another')),
      ];
    })()`);
    assert.deepEqual(outcomes, [
      'accepted: Grüße aus Tōkyō: a test',
      'accepted: Grüße aus Tōkyō: a test',
      'refused: signature_mismatch',
      'refused: signature_mismatch',
    ]);
  } finally {
    for (const cleanup of cleanups.reverse()) await cleanup();
  }
});
