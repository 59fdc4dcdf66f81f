/**
 * `nextAction` (docs/architecture/tool-results.md#the-result-vocabulary): where a result has an obvious next call, it says
 * which tool to call with which arguments, and how long to wait first.
 */
import { z } from "zod";

/** The obvious next call after a result. */
export const NextAction = z.object({
  /** The tool to call. */
  tool: z.string().min(1),
  /** Its arguments, ready to send as they are. */
  args: z.record(z.string(), z.unknown()),
  /** Wait this long before calling, when calling at once would be too early. */
  afterSeconds: z.number().nonnegative().optional(),
});
export type NextAction = z.infer<typeof NextAction>;
