/**
 * Command-line parsing on `node:util`'s `parseArgs`: strict (an unknown
 * option is a usage error), with typed accessors that refuse bad values with
 * one-line `invalid_spec` errors (exit code 2).
 */
import { parseArgs } from "node:util";
import { ErrandError } from "@errand/core";
import { type CommandSyntax, HELP_OPTION } from "./command-syntax.js";

type Values = Record<string, string | boolean | (string | boolean)[] | undefined>;

/** A usage error: exit code 2, one line on stderr. */
export function usageError(message: string, cause?: unknown): ErrandError {
  return new ErrandError("invalid_spec", message, cause === undefined ? {} : { cause });
}

/**
 * A whole number from `min` to `max` read from `text` (an option's value or
 * a variable's), or a usage error naming `what`.
 */
export function wholeNumber(text: string, what: string, min: number, max: number): number {
  const value = Number(text);
  if (!/^\d+$/.test(text.trim()) || value < min || value > max) {
    throw usageError(
      `${what} must be a whole number from ${min} to ${max}, not ${JSON.stringify(text)}`,
    );
  }
  return value;
}

/**
 * Option `name`'s value, else variable `variable`'s in `env`, as a
 * {@link wholeNumber} from `min` to `max`; undefined when neither is given.
 */
export function wholeNumberOption(
  args: ParsedArgs,
  env: Readonly<Record<string, string | undefined>>,
  option: { name: string; variable: string; min: number; max: number },
): number | undefined {
  const { name, variable, min, max } = option;
  const text = args.string(name) ?? env[variable];
  if (text === undefined || text === "") return undefined;
  return wholeNumber(text, `--${name} (or ${variable})`, min, max);
}

/** The parsed arguments of one command, with accessors that check them. */
export class ParsedArgs {
  readonly #values: Values;
  readonly #command: string;
  /** The positional arguments, in order. */
  readonly positionals: readonly string[];

  constructor(command: string, values: Values, positionals: readonly string[]) {
    this.#command = command;
    this.#values = values;
    this.positionals = positionals;
  }

  /** The value of a string option, or `undefined` when it was not given. */
  string(name: string): string | undefined {
    const value = this.#values[name];
    return typeof value === "string" ? value : undefined;
  }

  /**
   * Every value of a repeatable option (`multiple`), in the order given;
   * `[]` when it was not given.
   */
  strings(name: string): string[] {
    const value = this.#values[name];
    if (!Array.isArray(value)) return [];
    return value.filter((item): item is string => typeof item === "string");
  }

  /** The value of a string option that must be given. */
  requiredString(name: string): string {
    const value = this.string(name);
    if (value === undefined) throw usageError(`${this.#command}: --${name} is required`);
    return value;
  }

  /** True when the flag was given. */
  flag(name: string): boolean {
    return this.#values[name] === true;
  }

  /** An integer option within `min … max`, or `fallback` when it was not given. */
  integer(name: string, bounds: { min: number; max: number }, fallback: number): number {
    const text = this.string(name);
    if (text === undefined) return fallback;
    const value = Number(text);
    if (!/^-?\d+$/.test(text.trim()) || value < bounds.min || value > bounds.max) {
      throw usageError(
        `${this.#command}: --${name} must be a whole number from ${bounds.min} to ${bounds.max}, not ${JSON.stringify(text)}`,
      );
    }
    return value;
  }

  /** The positional argument at `index`, which must be given; `name` is for the error. */
  positional(index: number, name: string): string {
    const value = this.positionals[index];
    if (value === undefined) throw usageError(`${this.#command}: missing <${name}>`);
    return value;
  }
}

/** parseArgs' refusal of an option whose value starts with a dash (`--deadline -1`, or `--input --wait`). */
const AMBIGUOUS_VALUE = /^Option '(-[^' ]+)' argument is ambiguous/;

/** parseArgs' refusal of an option the command does not declare, followed by advice about positionals. */
const UNKNOWN_OPTION = /^Unknown option '([^']+)'/;

/**
 * parseArgs' refusal said for this CLI: an option whose value starts with a
 * dash (the next option, the value forgotten, or a value such as `-1`) with
 * what to write instead; an unknown option named without parseArgs' advice
 * about positionals; anything else as its first line.
 */
function parseRefusal(message: string, argv: readonly string[]): string {
  const dashed = AMBIGUOUS_VALUE.exec(message)?.[1];
  if (dashed !== undefined) {
    const value = argv[argv.indexOf(dashed) + 1] ?? "";
    return `${dashed} takes a value, and ${JSON.stringify(value)} starts with a dash: give ${dashed} its value, or write ${dashed}=${value} if that is the value`;
  }
  const unknown = UNKNOWN_OPTION.exec(message)?.[1];
  if (unknown !== undefined) return `unknown option ${unknown}`;
  return message.split("\n")[0]!;
}

/**
 * Parses `argv` (the words after `command`, the command's name) against the command's
 * options plus `--help`. Unknown options, missing option values and more
 * positionals than the command declares are usage errors.
 */
export function parseCommandArgs(
  command: string,
  spec: CommandSyntax,
  argv: readonly string[],
): ParsedArgs {
  const declared = { ...HELP_OPTION, ...spec.options };
  const options = Object.fromEntries(
    Object.entries(declared).map(([name, option]) => [
      name,
      {
        type: option.type,
        ...(option.short === undefined ? {} : { short: option.short }),
        ...(option.multiple === true ? { multiple: true } : {}),
      },
    ]),
  );
  let parsed: { values: Values; positionals: string[] };
  try {
    parsed = parseArgs({ args: [...argv], options, strict: true, allowPositionals: true });
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    throw usageError(`${command}: ${parseRefusal(message, argv)} (see errand ${command} --help)`);
  }
  const allowed = spec.positionals?.length ?? 0;
  if (parsed.values.help !== true && parsed.positionals.length > allowed) {
    const extra = parsed.positionals[allowed];
    const hint = spec.extraArgumentHint === undefined ? "" : `: ${spec.extraArgumentHint}`;
    throw usageError(
      `${command}: unexpected argument ${JSON.stringify(extra)}${hint} (see errand ${command} --help)`,
    );
  }
  return new ParsedArgs(command, parsed.values, parsed.positionals);
}
