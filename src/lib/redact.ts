/**
 * The password part of `scheme://user:password@` wherever it appears. Greedy up to the last `@`
 * before a space or a quote, so a password with an unescaped `@` or `/` (the very mistake that
 * makes a URL invalid, and so printed in an error) is hidden whole; never past a quote, so a JSON
 * text stays JSON.
 */
const URL_PASSWORD = /(\b[a-z][a-z0-9+.-]*:\/\/[^:@/\s"]*:)[^\s"]*@/gi;

/**
 * A text (a connection string, an error message quoting one) safe to print: `postgres://u:***@host/db`.
 * Everything the operator sees of DATABASE_URL and REDIS_URL passes through here.
 */
export function redactPasswords(text: string): string {
  return text.replace(URL_PASSWORD, '$1***@');
}
