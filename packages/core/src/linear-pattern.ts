/**
 * Regular expressions matched in time linear in the input: the schema
 * keyword `pattern` comes from whoever fires a run (a parent agent sets its
 * children's schemas, so a prompt injection is enough), and a backtracking
 * engine given `^(a+)+$` takes exponential time on a short answer. errand
 * matches every such pattern with RE2 (the `re2js` port), which has no
 * backtracking: a pattern RE2 cannot compile (backreferences, lookaround,
 * repeat counts over 1,000) is refused before the run starts instead.
 *
 * The pattern is read as ECMAScript writes it (JSON Schema's dialect) where
 * RE2 spells it differently: `\uHHHH` becomes RE2's `\x{HHHH}`. Everything
 * else is RE2 syntax and semantics (https://github.com/google/re2/wiki/Syntax),
 * which agree with ECMAScript on the constructs schemas use.
 */
import { RE2JS } from "re2js";

/** A compiled pattern. */
export interface LinearPattern {
  /** The pattern as written. */
  readonly source: string;
  /** True when the pattern matches anywhere in `text` (unanchored, as JSON Schema's `pattern`). */
  test(text: string): boolean;
}

/** A compiled pattern, or why RE2 cannot compile it. */
export type LinearPatternCompilation =
  | { ok: true; pattern: LinearPattern }
  | { ok: false; problem: string };

/** `\uHHHH` as RE2 spells it; every other escape is kept, backslash pairs included. */
function re2Syntax(source: string): string {
  return source.replace(/\\(u[0-9A-Fa-f]{4}|[\s\S])/g, (whole, rest: string) =>
    rest.length === 5 ? `\\x{${rest.slice(1)}}` : whole,
  );
}

/**
 * Compiles `source` for linear-time matching. Never throws: a pattern RE2
 * cannot compile comes back with RE2's reason (`invalid or unsupported Perl
 * syntax: (?=`).
 */
export function compileLinearPattern(source: string): LinearPatternCompilation {
  try {
    const compiled = RE2JS.compile(re2Syntax(source));
    return { ok: true, pattern: { source, test: (text) => compiled.test(text) } };
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    return { ok: false, problem: message.replace(/^error parsing regexp: /, "") };
  }
}
