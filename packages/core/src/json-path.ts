/**
 * Paths into JSON values, written the way a person reads them in an error
 * message: `properties.user.properties["first name"].anyOf[1]`.
 */

/** A path into a JSON value: object keys and array indexes, outermost first. */
export type JsonPath = readonly (string | number)[];

const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

/**
 * `path` in dotted form: identifier keys after a dot, indexes in brackets,
 * any other key as a quoted string in brackets. The empty path reads as
 * `root`, and a path that starts with an index starts with `root` too
 * (`sortKey[0]`).
 */
export function formatJsonPath(path: JsonPath, root: string): string {
  if (path.length === 0) return root;
  let text = typeof path[0] === "number" ? root : "";
  for (const segment of path) {
    if (typeof segment === "number") text += `[${segment}]`;
    else if (IDENTIFIER.test(segment)) text += text === "" ? segment : `.${segment}`;
    else text += `[${JSON.stringify(segment)}]`;
  }
  return text;
}
