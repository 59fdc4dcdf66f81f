/**
 * What a command accepts: its options and positional arguments, and the
 * `--help` every command takes. A leaf both the parser (`args.ts`) and the
 * commands' shape (`command.ts`) import, so neither imports the other back.
 */

/** One `--option` of a command. */
export interface OptionSpec {
  /** `string` takes a value (`--limit 20`), `boolean` is a flag (`--json`). */
  readonly type: "string" | "boolean";
  /** A one-letter alias (`-h`). */
  readonly short?: string;
  /** The value's placeholder in the help (`<url>`). */
  readonly value?: string;
  /**
   * A `string` option that may be given more than once (`--metadata a=1
   * --metadata b=2`); read it with `ParsedArgs.strings`. The help marks it
   * `(repeatable)`.
   */
  readonly multiple?: boolean;
  /** One line for the help. */
  readonly description: string;
}

/** One positional argument of a command. */
interface PositionalSpec {
  readonly name: string;
  readonly description: string;
}

/** The options and positional arguments of a command, which its arguments are parsed against. */
export interface CommandSyntax {
  readonly positionals?: readonly PositionalSpec[];
  /**
   * What to do instead, told to someone who gave an argument more than
   * {@link CommandSyntax.positionals} (`errand fire greeter Ada`: the input
   * goes in `--input`).
   */
  readonly extraArgumentHint?: string;
  readonly options: Readonly<Record<string, OptionSpec>>;
}

/** `--help`, which every command takes. */
export const HELP_OPTION: Readonly<Record<string, OptionSpec>> = {
  help: { type: "boolean", short: "h", description: "show this help" },
};
