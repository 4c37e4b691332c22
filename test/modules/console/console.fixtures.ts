import assert from 'node:assert/strict';
import type { LightMyRequestResponse } from 'fastify';
import { createInvite } from '../../../src/modules/console/index.ts';
import { addMember } from '../../../src/modules/team/index.ts';
import type { Harness } from '../../helpers/harness.ts';

export const PASSWORD = 'correct horse battery staple';

/** A browser of the console: keeps its cookies, and finds each form's CSRF token in the page. */
export class Browser {
  readonly cookies = new Map<string, string>();
  private csrf = '';

  constructor(
    private readonly h: Pick<Harness, 'app'>,
    private readonly remoteAddress = '203.0.113.7',
  ) {}

  async get(path: string): Promise<LightMyRequestResponse> {
    const response = await this.h.app.inject({
      method: 'GET',
      url: path,
      headers: this.cookieHeader(),
      remoteAddress: this.remoteAddress,
    });
    this.keep(response);
    return response;
  }

  /**
   * Posts the form as the page's form would, with the CSRF token of the last page seen (unless `csrf`
   * says otherwise). Pairs post a name several times, as ticked checkboxes do.
   */
  async post(
    path: string,
    fields: Record<string, string> | Array<[string, string]>,
    csrf: string | null = this.csrf,
  ): Promise<LightMyRequestResponse> {
    const form = new URLSearchParams(fields);
    if (csrf !== null) form.set('_csrf', csrf);
    const response = await this.h.app.inject({
      method: 'POST',
      url: path,
      headers: { ...this.cookieHeader(), 'content-type': 'application/x-www-form-urlencoded' },
      payload: form.toString(),
      remoteAddress: this.remoteAddress,
    });
    this.keep(response);
    return response;
  }

  get csrfToken(): string {
    return this.csrf;
  }

  private cookieHeader(): Record<string, string> {
    if (this.cookies.size === 0) return {};
    return { cookie: [...this.cookies].map(([name, value]) => `${name}=${value}`).join('; ') };
  }

  private keep(response: LightMyRequestResponse): void {
    for (const cookie of response.cookies) {
      if (cookie.value === '' || (cookie.expires && cookie.expires.getTime() <= Date.now()))
        this.cookies.delete(cookie.name);
      else this.cookies.set(cookie.name, cookie.value);
    }
    const token = /name="_csrf" value="([^"]+)"/.exec(response.body)?.[1];
    if (token) this.csrf = token;
  }
}

/** A member added as `labeldesk member add` adds one, with the path of their invite address. */
export async function givenInvitedMember(
  h: Pick<Harness, 'ctx'>,
  labelId: number,
  input: { login: string; role: string; name?: string },
): Promise<{ userId: number; invitePath: string }> {
  const member = await addMember(h.ctx, {
    labelId,
    login: input.login,
    name: input.name ?? `Member ${input.login}`,
    role: input.role,
  });
  const invite = await createInvite(h.ctx, member.user_id);
  return { userId: member.user_id, invitePath: new URL(invite.invite_url).pathname };
}

/** Opens the invite address and chooses the password: the browser is signed in. */
export async function acceptInvite(browser: Browser, invitePath: string, password = PASSWORD): Promise<void> {
  assert.equal((await browser.get(invitePath)).statusCode, 200);
  const accepted = await browser.post(invitePath, { password, confirmation: password });
  assert.equal(accepted.statusCode, 303, accepted.body);
  assert.equal(accepted.headers.location, '/console');
}
