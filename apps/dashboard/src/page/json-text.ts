/** Reading JSON a person typed into one of the page's forms. */

/** `text` parsed as JSON, as `{ value }`; `undefined` when it is not JSON. */
export function parseJsonText(text: string): { value: unknown } | undefined {
  try {
    return { value: JSON.parse(text) };
  } catch {
    return undefined;
  }
}
