/**
 * Every command of `errand`, in the order the overview lists them. A
 * command's module is imported only when it runs, so `errand --help` stays
 * quick.
 */
import type { CommandEntry } from "../command.js";

/** The commands, by name. */
export const COMMANDS: readonly CommandEntry[] = [
  {
    name: "runs fold",
    summary: "fold a saved log offline and print its RunResult",
    load: async () => (await import("./runs-fold.js")).runsFoldCommand,
  },
];
