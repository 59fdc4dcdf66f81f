/**
 * Help texts: the overview `errand --help` prints and each command's own
 * `--help`, both built from the command specs so they never drift.
 */
import type { CommandEntry, CommandSpec } from "./command.js";
import { HELP_OPTION, type OptionSpec } from "./command-syntax.js";
import { EXIT_CODES_HELP } from "./exit-codes.js";
import { formatTable } from "./table.js";

const HELP_LABEL_WIDTH = 40;
const HELP_TEXT_WIDTH = 200;

function optionLabel(name: string, option: OptionSpec): string {
  const short = option.short === undefined ? "" : `-${option.short}, `;
  const value = option.type === "string" ? ` ${option.value ?? "<value>"}` : "";
  return `${short}--${name}${value}`;
}

function indented(rows: readonly (readonly string[])[]): string[] {
  return formatTable(rows, [HELP_LABEL_WIDTH, HELP_TEXT_WIDTH]).map((line) => `  ${line}`);
}

/** The `--help` of one command. */
export function commandHelp(entry: Pick<CommandEntry, "summary">, spec: CommandSpec): string {
  const options = { ...spec.options, ...HELP_OPTION };
  const lines = [`Usage: ${spec.usage}`, "", entry.summary];
  if (spec.description !== undefined) lines.push("", spec.description);
  if (spec.positionals !== undefined && spec.positionals.length > 0) {
    lines.push("", "Arguments:", ...indented(spec.positionals.map((p) => [p.name, p.description])));
  }
  const optionRows = Object.entries(options).map(([name, o]) => [
    optionLabel(name, o),
    o.multiple === true ? `${o.description} (repeatable)` : o.description,
  ]);
  lines.push("", "Options:", ...indented(optionRows), "", EXIT_CODES_HELP);
  return `${lines.join("\n")}\n`;
}

/** The overview: every command with its summary, the environment and the exit codes. */
export function overviewHelp(commands: readonly Pick<CommandEntry, "name" | "summary">[]): string {
  const lines = [
    "Usage: errand <command> [options]",
    "",
    "Run AI subagents in the background on BullMQ and Redis.",
    "",
    "Commands:",
    ...indented(commands.map((c) => [c.name, c.summary])),
    "",
    "Environment:",
    ...indented([
      [
        "REDIS_URL",
        "the Redis to use (or --redis), redis://host:port or redis+cluster://host1:port1,host2:port2; demo and up start their own without it",
      ],
      [
        "OPENAI_API_KEY",
        "run agents on an OpenAI-compatible model; without it or a base URL, the scripted model",
      ],
      [
        "OPENAI_BASE_URL",
        "an OpenAI-compatible server (Ollama, vLLM, LM Studio, …); enough without a key",
      ],
      [
        "ERRAND_MODEL",
        "the model: anthropic/<model>, google/<model>, openai/<model> or a name (default gpt-4o-mini)",
      ],
      [
        "ANTHROPIC_API_KEY",
        "Anthropic's key, for ERRAND_MODEL=anthropic/… (ANTHROPIC_BASE_URL: another server)",
      ],
      [
        "GOOGLE_GENERATIVE_AI_API_KEY",
        "Google's key, for ERRAND_MODEL=google/… (GOOGLE_GENERATIVE_AI_BASE_URL: another server)",
      ],
      [
        "ERRAND_DASHBOARD_TOKEN",
        "the token the dashboard asks of every request; needed beyond loopback",
      ],
      [
        "ERRAND_DASHBOARD_PUBLIC_URL",
        "where a reverse proxy serves the dashboard (or --public-url), e.g. https://…",
      ],
      [
        "OTEL_EXPORTER_OTLP_ENDPOINT",
        "send OpenTelemetry traces there over OTLP/HTTP (OTEL_SERVICE_NAME names the process)",
      ],
    ]),
    "",
    EXIT_CODES_HELP,
    "",
    "Run `errand <command> --help` for a command's options.",
  ];
  return `${lines.join("\n")}\n`;
}
