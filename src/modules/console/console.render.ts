import { hash } from 'node:crypto';
import { Html, html } from '../../lib/html.ts';

/*
 * The console's pages: server-rendered, one stylesheet and one small script inline (each allowed by
 * its hash in the Content-Security-Policy), light or dark as the reader's system prefers. Every page
 * works without the script: it only adds "Copy" buttons.
 */

const STYLESHEET = `
:root{color-scheme:light dark;--bg:#f7f7fb;--fg:#1b1b24;--muted:#55556a;--card:#fff;--line:#d9d9e3;--accent:#4b2fd6;--danger:#b3261e}
@media (prefers-color-scheme:dark){:root{--bg:#14141b;--fg:#ececf4;--muted:#a9a9bd;--card:#1e1e28;--line:#34344a;--accent:#a99bff;--danger:#ff8a80}}
*{box-sizing:border-box}
body{margin:0;font:16px/1.5 system-ui,sans-serif;background:var(--bg);color:var(--fg)}
a{color:var(--accent)}
.skip{position:absolute;left:-999px}.skip:focus{left:1rem;top:1rem;background:var(--card);padding:.5rem}
header{display:flex;flex-wrap:wrap;align-items:center;gap:1rem;padding:.75rem 1.5rem;border-bottom:1px solid var(--line);background:var(--card)}
header .label{font-weight:600;margin-right:auto}
nav ul{display:flex;flex-wrap:wrap;gap:1rem;list-style:none;margin:0;padding:0}
nav a[aria-current=page]{font-weight:700;text-decoration:none}
main{max-width:64rem;margin:0 auto;padding:1.5rem}
h1{font-size:1.5rem;margin:0 0 1rem}
h2{font-size:1.15rem;margin:1.5rem 0 .5rem}
section,.card{background:var(--card);border:1px solid var(--line);border-radius:.5rem;padding:1rem 1.25rem;margin-bottom:1rem}
table{border-collapse:collapse;width:100%}
th,td{text-align:left;padding:.35rem .5rem;border-bottom:1px solid var(--line)}
td.n,th.n{text-align:right;font-variant-numeric:tabular-nums}
form.stack{display:grid;gap:.75rem;max-width:24rem}
label{display:grid;gap:.25rem;font-weight:600}
label.choice{display:flex;align-items:center;gap:.5rem;font-weight:400}
fieldset{border:1px solid var(--line);border-radius:.375rem;display:grid;gap:.25rem}
legend{font-weight:600}
input,select,textarea{font:inherit;padding:.5rem;border:1px solid var(--muted);border-radius:.375rem;background:var(--bg);color:var(--fg)}
button{font:inherit;padding:.5rem 1rem;border:0;border-radius:.375rem;background:var(--accent);color:#fff;cursor:pointer}
@media (prefers-color-scheme:dark){button{color:#14141b}}
.link-button{background:none;color:var(--accent);padding:0;text-decoration:underline}
.error{color:var(--danger);font-weight:600}
.muted{color:var(--muted)}
.filters{display:flex;flex-wrap:wrap;gap:1rem;align-items:end;margin-bottom:1rem}
select{font:inherit;padding:.5rem;border:1px solid var(--muted);border-radius:.375rem;background:var(--bg);color:var(--fg)}
dl{display:grid;grid-template-columns:max-content 1fr;gap:.25rem 1rem}dt{font-weight:600}dd{margin:0}
.pager{display:flex;gap:1rem;margin-top:.75rem}
.text{white-space:pre-wrap}
.copy{display:flex;flex-wrap:wrap;gap:.5rem;align-items:center}.copy input{flex:1 1 20rem;min-width:0}
svg text{fill:var(--muted);font-size:11px}
.bar-views{fill:var(--accent)}.bar-clicks{fill:var(--muted)}
`;

/**
 * Shows each "Copy" button (hidden, so that without JavaScript the page offers only what works: the
 * read-only field, to select) and copies its field's value. The clipboard API needs a secure page;
 * elsewhere the selected text is copied the old way.
 */
const COPY_SCRIPT = `
for (const button of document.querySelectorAll('button[data-copy]')) {
  const field = document.getElementById(button.dataset.copy);
  const status = document.getElementById(button.dataset.copy + '-copied');
  button.hidden = false;
  button.addEventListener('click', async () => {
    field.select();
    try { await navigator.clipboard.writeText(field.value); } catch { document.execCommand('copy'); }
    status.textContent = 'Copied';
  });
}
`;

/** Ours and constant: put in as written (escaping would change what its hash allows). */
const STYLE = new Html(STYLESHEET);
const SCRIPT = new Html(COPY_SCRIPT);
const hashSource = (text: string) => `'sha256-${hash('sha256', text, 'base64')}'`;

/** Only our own style and script run, nothing loads from elsewhere, and forms post only to us. */
export const CONSOLE_SECURITY_POLICY = {
  defaultSrc: ["'none'"],
  styleSrc: [hashSource(STYLESHEET)],
  scriptSrc: [hashSource(COPY_SCRIPT)],
  imgSrc: ["'self'", 'data:'],
  formAction: ["'self'"],
  frameAncestors: ["'none'"],
  baseUri: ["'none'"],
};

export interface NavItem {
  name: string;
  href: string;
  current: boolean;
}

/** A signed-in page's frame: the label, the navigation the member may use, and "Sign out". */
export interface Frame {
  labelName: string;
  memberName: string;
  nav: readonly NavItem[];
  csrfToken: string;
}

function document(title: string, body: Html): string {
  return html`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>${title} · Labeldesk console</title><style>${STYLE}</style></head>
<body>${body}<script>${SCRIPT}</script></body></html>`.text;
}

/**
 * A value shown once, in a read-only field labelled `label`, with a "Copy" button (named
 * `copyName`) that the script shows, and a status line that says when it has copied.
 */
export function shownOnce(id: string, label: string, value: string, copyName: string): Html {
  return html`<label for="${id}">${label}</label>
<span class="copy"><input id="${id}" readonly value="${value}" size="60" autocomplete="off" spellcheck="false">
<button type="button" data-copy="${id}" hidden>${copyName}</button> <span id="${id}-copied" role="status" class="muted"></span></span>`;
}

export function signedInPage(frame: Frame, title: string, content: Html): string {
  const nav = frame.nav.map(
    (item) =>
      html`<li><a href="${item.href}"${item.current ? html` aria-current="page"` : ''}>${item.name}</a></li>`,
  );
  return document(
    title,
    html`<a class="skip" href="#main">Skip to content</a>
<header><span class="label">${frame.labelName}</span>
<nav aria-label="Console"><ul>${nav}</ul></nav>
<span class="muted">${frame.memberName}</span>
<form method="post" action="/console/sign-out"><input type="hidden" name="_csrf" value="${frame.csrfToken}"><button type="submit" class="link-button">Sign out</button></form>
</header>
<main id="main"><h1>${title}</h1>${content}</main>`,
  );
}

function standalonePage(title: string, content: Html): string {
  return document(title, html`<main id="main"><h1>${title}</h1>${content}</main>`);
}

export function signInPage(input: { csrfToken: string; login?: string; error?: string }): string {
  return standalonePage(
    'Sign in',
    html`<section><form class="stack" method="post" action="/console/sign-in">
<input type="hidden" name="_csrf" value="${input.csrfToken}">
${input.error ? html`<p class="error" role="alert">${input.error}</p>` : ''}
<label>Login <input name="login" autocomplete="username" required value="${input.login ?? ''}"></label>
<label>Password <input name="password" type="password" autocomplete="current-password" required></label>
<button type="submit">Sign in</button>
</form></section>`,
  );
}

export function invitePage(input: {
  csrfToken: string;
  action: string;
  memberName: string;
  login: string;
  error?: string;
}): string {
  return standalonePage(
    'Choose a password',
    html`<section><p>Welcome, ${input.memberName}. Your login is <strong>${input.login}</strong>. Choose a password of at least 12 characters.</p>
<form class="stack" method="post" action="${input.action}">
<input type="hidden" name="_csrf" value="${input.csrfToken}">
${input.error ? html`<p class="error" role="alert">${input.error}</p>` : ''}
<input type="hidden" name="login" autocomplete="username" value="${input.login}">
<label>Password <input name="password" type="password" autocomplete="new-password" minlength="12" required></label>
<label>Confirm password <input name="confirmation" type="password" autocomplete="new-password" minlength="12" required></label>
<button type="submit">Set password and sign in</button>
</form></section>`,
  );
}

export function messagePage(title: string, message: string, link?: { href: string; text: string }): string {
  return standalonePage(
    title,
    html`<section><p>${message}</p>${link ? html`<p><a href="${link.href}">${link.text}</a></p>` : ''}</section>`,
  );
}

/** A service's refusal, next to the form that asked (or as the page): its message. */
export function refusalMessage(error: { message: string }): Html {
  return html`<p class="error" role="alert">${error.message}</p>`;
}

export function forbiddenContent(roleTitle: string): Html {
  return html`<section><p>This page is not available to your role (${roleTitle}). Ask an owner or an administrator of the label if you need it.</p></section>`;
}

/** A page refused as a whole (another label's id, a query too short): the refusal, and a way back. */
export function refusalContent(error: { message: string }): Html {
  return html`<section>${refusalMessage(error)}<p><a href="/console">Back to the overview</a></p></section>`;
}

const CHART = { width: 720, height: 160, top: 10, bottom: 24 };

/** Views and clicks per day as bars, drawn on the server: the page needs no script. */
export function dailyChart(daily: ReadonlyArray<{ date: string; views: number; clicks: number }>): Html {
  const max = Math.max(1, ...daily.map((day) => day.views));
  const slot = CHART.width / Math.max(1, daily.length);
  const plot = CHART.height - CHART.top - CHART.bottom;
  const y = (value: number) => CHART.top + plot - (value / max) * plot;
  const bars = daily.map((day, i) => {
    const x = i * slot;
    return html`<rect class="bar-views" x="${(x + 1).toFixed(1)}" y="${y(day.views).toFixed(1)}" width="${(slot / 2 - 1).toFixed(1)}" height="${(CHART.top + plot - y(day.views)).toFixed(1)}"/><rect class="bar-clicks" x="${(x + slot / 2).toFixed(1)}" y="${y(day.clicks).toFixed(1)}" width="${(slot / 2 - 1).toFixed(1)}" height="${(CHART.top + plot - y(day.clicks)).toFixed(1)}"/>`;
  });
  const first = daily[0]?.date ?? '';
  const last = daily.at(-1)?.date ?? '';
  const total = (key: 'views' | 'clicks') => daily.reduce((sum, day) => sum + day[key], 0);
  return html`<svg role="img" aria-label="Smart-link views and clicks per day, ${first} to ${last}: ${total('views')} views, ${total('clicks')} clicks" viewBox="0 0 ${CHART.width} ${CHART.height}" width="100%">
${bars}<text x="0" y="${CHART.height - 6}">${first}</text><text x="${CHART.width}" y="${CHART.height - 6}" text-anchor="end">${last}</text><text x="${CHART.width}" y="10" text-anchor="end">max ${max} views a day</text></svg>
<p class="muted">Views (dark bars) and clicks (light bars), per UTC day.</p>`;
}

const RANK = { width: 480, row: 22, label: 160 };

/** Counts of one breakdown as horizontal bars, most first, each with its name and number. */
export function rankChart(name: string, rows: ReadonlyArray<{ name: string; count: number }>): Html {
  if (rows.length === 0) return html`<p class="muted">Nothing counted yet.</p>`;
  const max = Math.max(1, ...rows.map((row) => row.count));
  const plot = RANK.width - RANK.label - 60;
  const bars = rows.map((row, i) => {
    const y = i * RANK.row;
    return html`<text x="0" y="${y + 15}">${row.name}</text><rect class="bar-views" x="${RANK.label}" y="${y + 4}" width="${((row.count / max) * plot).toFixed(1)}" height="${RANK.row - 8}"/><text x="${RANK.width}" y="${y + 15}" text-anchor="end">${row.count}</text>`;
  });
  return html`<svg role="img" aria-label="${name}: ${rows.map((row) => `${row.name} ${row.count}`).join(', ')}" viewBox="0 0 ${RANK.width} ${rows.length * RANK.row}" width="100%">${bars}</svg>`;
}
