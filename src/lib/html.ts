/*
 * HTML written by our own server-rendered pages (smart-link pages, the console): text is escaped
 * where it is put in, so that a name, a title or a message can never become markup.
 */

const HTML_ESCAPES: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
};

/** Safe in text and in quoted attribute values alike. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (char) => HTML_ESCAPES[char] ?? char);
}

/** Markup that was built by `html` (its values escaped): put in as it is. */
export class Html {
  constructor(readonly text: string) {}

  toString(): string {
    return this.text;
  }
}

/** What a page may put in: text (escaped), numbers, markup, lists of them; nothing for null, undefined, false. */
export type HtmlValue = string | number | Html | null | undefined | false | readonly HtmlValue[];

function render(value: HtmlValue): string {
  if (value === null || value === undefined || value === false) return '';
  if (value instanceof Html) return value.text;
  if (Array.isArray(value)) return value.map(render).join('');
  return escapeHtml(String(value));
}

/** A template of markup whose values are escaped, unless they are markup made by `html` themselves. */
export function html(strings: TemplateStringsArray, ...values: readonly HtmlValue[]): Html {
  let text = strings[0] ?? '';
  values.forEach((value, i) => {
    text += render(value) + (strings[i + 1] ?? '');
  });
  return new Html(text);
}
