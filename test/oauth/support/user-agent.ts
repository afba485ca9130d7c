/**
 * A headless user agent for the embedded Account's pages: follows the authorization URL with a
 * cookie jar, signs in through the real login form, then approves or denies on the real consent
 * form, and stops at the client's redirect URI. Only the forms' own fields are sent (the CSRF
 * token is read from the page), as a browser would.
 */
import { connectionRetryingFetch } from '../../helpers/connection-retry.js';

export interface PersonActions {
  readonly email: string;
  readonly password: string;
  readonly decision: 'approve' | 'deny';
  /** Tick "Also allow these changes" on the consent page. */
  readonly allowWrites?: boolean;
}

export interface UserAgentResult {
  /** The redirect to the client (code, state, iss — or error). */
  readonly callback: URL;
  /** The HTML of every page shown, in order. */
  readonly pages: string[];
}

function readAttribute(html: string, pattern: RegExp): string {
  const match = pattern.exec(html);
  if (!match) throw new Error(`page lacks ${pattern}`);
  return (match[1] as string).replace(/&amp;/g, '&');
}

export class CookieJar {
  private readonly cookies = new Map<string, string>();
  store(response: Response): void {
    for (const line of response.headers.getSetCookie()) {
      const [pair] = line.split(';');
      const index = (pair as string).indexOf('=');
      const name = (pair as string).slice(0, index);
      const value = (pair as string).slice(index + 1);
      if (value === '' || /expires=Thu, 01 Jan 1970/i.test(line)) this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
  }
  header(): string {
    return [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
  }
}

export interface UserAgentOptions {
  readonly jar?: CookieJar;
  /** Where each request really goes (replicas behind one PUBLIC_URL: the test picks the replica). */
  readonly route?: (url: URL, step: number) => URL;
}

export async function actAsPerson(authorizationUrl: URL, redirectUri: string, actions: PersonActions, options: UserAgentOptions = {}): Promise<UserAgentResult> {
  const jar = options.jar ?? new CookieJar();
  const pages: string[] = [];
  let next: { url: URL; init?: RequestInit } = { url: authorizationUrl };
  for (let step = 0; step < 20; step++) {
    const target = options.route ? options.route(next.url, step) : next.url;
    const headers = { ...(next.init?.headers as Record<string, string> | undefined), cookie: jar.header() };
    const response = await connectionRetryingFetch()(target, { ...next.init, redirect: 'manual', headers });
    jar.store(response);
    const location = response.headers.get('location');
    if (location !== null) {
      const target = new URL(location, next.url);
      if (target.href.startsWith(redirectUri)) return { callback: target, pages };
      next = { url: target };
      continue;
    }
    const html = await response.text();
    pages.push(html);
    if (response.status >= 400 && !html.includes('name="password"')) throw new Error(`page answered ${response.status}: ${/<h1>.*<\/p>/s.exec(html)?.[0] ?? html.slice(0, 300)}`);
    const action = new URL(readAttribute(html, /<form method="post" action="([^"]+)"/), next.url);
    const form = new URLSearchParams({ csrf: readAttribute(html, /name="csrf" value="([^"]+)"/) });
    if (html.includes('name="password"')) {
      if (response.status === 401) throw new Error('sign-in refused');
      form.set('email', actions.email);
      form.set('password', actions.password);
    } else {
      form.set('decision', actions.decision);
      if (actions.allowWrites) form.set('allow_writes', 'yes');
    }
    next = {
      url: action,
      init: { method: 'POST', body: form.toString(), headers: { 'content-type': 'application/x-www-form-urlencoded', origin: action.origin } },
    };
  }
  throw new Error('the authorization did not reach the redirect URI');
}
