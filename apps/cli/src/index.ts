/**
 * `@errand/cli` — the `errand` command. Use it from a shell (`errand --help`),
 * or call it from a program:
 *
 * ```ts
 * import { processIO, runCli } from "@errand/cli";
 * process.exitCode = await runCli(["runs", "list", "--json"], processIO());
 * ```
 *
 * @packageDocumentation
 */
export { runCli } from "./cli.js";
export { EXIT, type ExitCode, exitCodeFor } from "./exit-codes.js";
export { type CliIO, type OutputStream, processIO } from "./io.js";
