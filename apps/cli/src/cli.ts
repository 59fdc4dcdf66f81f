/**
 * `runCli`: finds the command named by the first words of `argv`, parses its
 * options, prints its help or runs it, and turns whatever it throws into a
 * one-line message and an exit code.
 */
import { parseCommandArgs, usageError } from "./args.js";
import { cliVersion } from "./cli-version.js";
import type { CommandEntry } from "./command.js";
import { COMMANDS } from "./commands/index.js";
import { EXIT, type ExitCode, exitCodeFor } from "./exit-codes.js";
import { commandHelp, overviewHelp } from "./help.js";
import type { CliIO } from "./io.js";
import { writeError } from "./output.js";

const HELP_WORDS = new Set(["--help", "-h", "help"]);

/** The command named by the first one, two or three words of `argv` (`eval sets save`), and the words after its name. */
function findCommand(
  argv: readonly string[],
): { entry: CommandEntry; rest: readonly string[] } | undefined {
  for (const words of [3, 2, 1]) {
    const name = argv.slice(0, words).join(" ");
    const entry = COMMANDS.find((command) => command.name === name);
    if (entry) return { entry, rest: argv.slice(words) };
  }
  return undefined;
}

/** The commands of a group (`runs list`, `runs show`, …) when `word` names one. */
function groupOf(word: string): CommandEntry[] {
  return COMMANDS.filter((command) => command.name.startsWith(`${word} `));
}

async function dispatch(argv: readonly string[], io: CliIO): Promise<ExitCode> {
  const [first, second] = argv;
  if (first === undefined || HELP_WORDS.has(first)) {
    (first === undefined ? io.stderr : io.stdout).write(overviewHelp(COMMANDS));
    return first === undefined ? EXIT.usage : EXIT.ok;
  }
  if (first === "--version") {
    io.stdout.write(`${cliVersion()}\n`);
    return EXIT.ok;
  }
  const found = findCommand(argv);
  if (found === undefined) {
    const group = groupOf(first);
    if (group.length > 0 && (second === undefined || HELP_WORDS.has(second))) {
      (second === undefined ? io.stderr : io.stdout).write(overviewHelp(group));
      return second === undefined ? EXIT.usage : EXIT.ok;
    }
    const what = group.length > 0 ? `${first} ${second}` : first;
    throw usageError(`unknown command: ${what} (see errand --help)`);
  }
  const { entry, rest } = found;
  const spec = await entry.load();
  const args = parseCommandArgs(entry.name, spec, rest);
  if (args.flag("help")) {
    io.stdout.write(commandHelp(entry, spec));
    return EXIT.ok;
  }
  return spec.run(args, io);
}

/**
 * Runs `errand` with `argv` (the words after `errand`) and resolves to the
 * exit code. Never rejects: an error becomes `errand: <message>` on stderr
 * and the exit code {@link exitCodeFor} gives it.
 */
export async function runCli(argv: readonly string[], io: CliIO): Promise<ExitCode> {
  try {
    return await dispatch(argv, io);
  } catch (error) {
    writeError(io, error);
    return exitCodeFor(error);
  }
}
