import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { systemClock } from '../../src/clock.ts';
import { loadConfig } from '../../src/config.ts';
import { createDatabase } from '../../src/db/database.ts';
import { systemResolver } from '../../src/modules/webhooks/webhooks.address.ts';
import { givenArtist, givenRelease } from '../helpers/catalog.ts';
import { cliJson, type Installation, newInstallation, runLabeldesk } from '../helpers/installation.ts';

// The operator's finance commands, run as a separate process the way they are typed.

const UPC = '036000291452';
const STRANGER_UPC = '0860000000031';

const STATEMENT = [
  'period,upc,isrc,dsp,country,quantity,revenue',
  `2026-01,${UPC},,Spotify,DE,40000,140.00`,
  `2026-02,${UPC},,Apple Music,US,1000,60.00`,
  `2026-02,${STRANGER_UPC},,TIDAL,US,7,0.07`,
].join('\n');

let install: Installation;
let labelId: number;

/** A release with the UPC, written straight into the installation's database (the CLI creates no catalog). */
async function givenReleaseWithUpc(): Promise<void> {
  const config = loadConfig(install.env);
  const handle = createDatabase(config);
  try {
    const h = {
      ctx: {
        config,
        db: handle.db,
        dialect: handle.dialect,
        clock: systemClock,
        resolveHost: systemResolver,
      },
    };
    const artist = await givenArtist(h, labelId);
    await givenRelease(h, labelId, { artist_id: artist.id, status: 'live', upc: UPC });
  } finally {
    await handle.destroy();
  }
}

function statementFile(name: string, text: string): string {
  const path = join(install.dataDir, name);
  writeFileSync(path, text);
  return path;
}

async function refused(args: string[], reason: string): Promise<void> {
  assert.deepEqual(await runLabeldesk(install, args), {
    code: 1,
    stdout: '',
    stderr: `labeldesk: ${reason}\n`,
  });
}

before(async () => {
  install = await newInstallation('finance_cli');
  assert.equal((await runLabeldesk(install, ['migrate'])).code, 0);
  const created = await cliJson<{ label: { id: number } }>(install, [
    'label',
    'create',
    '--name',
    'North',
    '--plan',
    'label',
  ]);
  labelId = created.label.id;
  await givenReleaseWithUpc();
});

after(() => install.dispose());

test('finance import pays the label, lists what matched nothing, and a second run changes nothing', async () => {
  const file = statementFile('sales-2026-02.csv', STATEMENT);
  const report = await cliJson<{
    already_imported: boolean;
    statement: { lines: number; matched: number; unmatched: number; revenue: number; file_name: string };
    payouts: { label_id: number; period: string; amount: number; commission: number; net_amount: number }[];
    unmatched_lines: { line: number; upc: string; dsp: string; reason: string }[];
  }>(install, ['finance', 'import', file]);
  assert.equal(report.already_imported, false);
  assert.deepEqual(
    { ...report.statement, id: undefined, content_hash: undefined, imported_at: undefined },
    {
      id: undefined,
      file_name: 'sales-2026-02.csv',
      content_hash: undefined,
      lines: 3,
      matched: 2,
      unmatched: 1,
      revenue: 200.07,
      imported_at: undefined,
    },
  );
  assert.deepEqual(
    report.payouts.map(({ label_id, period, amount, commission, net_amount }) => ({
      label_id,
      period,
      amount,
      commission,
      net_amount,
    })),
    [
      { label_id: labelId, period: '2026-01', amount: 140, commission: 21, net_amount: 119 },
      { label_id: labelId, period: '2026-02', amount: 60, commission: 9, net_amount: 51 },
    ],
  );
  assert.deepEqual(
    report.unmatched_lines.map(({ line, upc, dsp, reason }) => ({ line, upc, dsp, reason })),
    [
      {
        line: 4,
        upc: STRANGER_UPC,
        dsp: 'tidal',
        reason: 'no release with this UPC and no track with this ISRC',
      },
    ],
  );
  const listed = await cliJson<{ unmatched_lines: unknown[] }>(install, ['finance', 'unmatched']);
  assert.deepEqual(listed.unmatched_lines, report.unmatched_lines);

  const again = await runLabeldesk(install, ['finance', 'import', file]);
  assert.equal(again.code, 0);
  assert.match(
    again.stdout,
    /^sales-2026-02\.csv was imported before \(statement \d+, .+\): nothing changed\.\n/,
  );
  const againJson = await cliJson<{ already_imported: boolean }>(install, ['finance', 'import', file]);
  assert.deepEqual(againJson, { ...report, already_imported: true });
});

test('a malformed statement is refused with its line and reason, and an unreadable file by name', async () => {
  const bad = statementFile('bad.csv', `${STATEMENT}\n2026-02,${UPC},,spotify,ZZ,1,1.00\n`);
  await refused(
    ['finance', 'import', bad],
    'invalid: line 5: country "ZZ" is not an ISO 3166-1 alpha-2 code (country)',
  );
  await refused(
    ['finance', 'import', '/nonexistent/sales.csv'],
    'cannot read /nonexistent/sales.csv (ENOENT)',
  );
});

test('withdrawals: created within the balance and the minimum, then moved pending -> processing -> paid', async () => {
  // 170.00 earned (119 + 51) by the import above.
  await refused(
    ['finance', 'withdrawal', 'create', '--label', String(labelId), '--amount', '20'],
    'invalid: 20.00 is under the minimum withdrawal of 50.00 (amount)',
  );
  await refused(
    ['finance', 'withdrawal', 'create', '--label', String(labelId), '--amount', '170.01'],
    'invalid: 170.01 is over the available balance of 170.00 (amount)',
  );
  const created = await cliJson<{ withdrawal: { id: number; status: string; amount: number } }>(install, [
    'finance',
    'withdrawal',
    'create',
    '--label',
    String(labelId),
    '--amount',
    '120.50',
  ]);
  assert.deepEqual([created.withdrawal.amount, created.withdrawal.status], [120.5, 'pending']);
  const id = String(created.withdrawal.id);
  await refused(
    ['finance', 'withdrawal', 'set', id, '--status', 'paid'],
    `conflict: Withdrawal ${id} is pending: it can only become processing or rejected`,
  );
  const processing = await cliJson<{ withdrawal: { status: string }; balance: object }>(install, [
    'finance',
    'withdrawal',
    'set',
    id,
    '--status',
    'processing',
  ]);
  assert.deepEqual(processing.balance, { available: 49.5, earned: 170, withdrawn: 0, processing: 120.5 });
  const paid = await runLabeldesk(install, ['finance', 'withdrawal', 'set', id, '--status', 'paid']);
  assert.deepEqual(paid, {
    code: 0,
    stdout: `Withdrawal ${id} of label ${labelId}: 120.5 USD, paid. Balance: 49.5 USD available of 170 earned.\n`,
    stderr: '',
  });
  await refused(
    ['finance', 'withdrawal', 'set', '999999', '--status', 'paid'],
    'not_found: Withdrawal 999999 not found',
  );
});
