/**
 * The shape of a command: what its help shows (usage, options, arguments)
 * and what it does. Every command of `errand` is one {@link CommandSpec}.
 */
import type { ParsedArgs } from "./args.js";
import type { CommandSyntax, OptionSpec } from "./command-syntax.js";
import type { ExitCode } from "./exit-codes.js";
import type { CliIO } from "./io.js";

/**
 * A command as the overview lists it. Its spec is loaded only when the
 * command runs, so `errand --help` does not load BullMQ or the OpenAI client.
 */
export interface CommandEntry {
  /** The words that name it after `errand` (`fire`, `runs events`). */
  readonly name: string;
  /** One line for the command list and the top of its help. */
  readonly summary: string;
  load(): Promise<CommandSpec>;
}

/** A command's help and its action. */
export interface CommandSpec extends CommandSyntax {
  /** The synopsis, e.g. `errand runs events <runId> [--json]`. */
  readonly usage: string;
  /** Paragraphs shown under the synopsis. */
  readonly description?: string;
  /** Runs the command and resolves to its exit code; throws for usage and environment errors. */
  run(args: ParsedArgs, io: CliIO): Promise<ExitCode>;
}

/** `--json`, for commands with a machine-readable output. */
export const JSON_OPTION: Readonly<Record<string, OptionSpec>> = {
  json: { type: "boolean", description: "print machine-readable JSON on stdout" },
};

/** `--redis` and `--prefix`, for commands that talk to Redis. */
export const CONNECTION_OPTIONS: Readonly<Record<string, OptionSpec>> = {
  redis: {
    type: "string",
    value: "<url>",
    description:
      "the Redis to use (default: REDIS_URL): redis://host:port, or redis+cluster://host1:port1,host2:port2 for a Redis Cluster (rediss:// and rediss+cluster:// for TLS)",
  },
  prefix: {
    type: "string",
    value: "<prefix>",
    description: "the prefix of every key (default: errand)",
  },
};
