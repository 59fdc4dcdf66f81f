/**
 * An agent's input schema: the JSON Schema (inside the strict subset that
 * core's `preflightSchema` accepts, as output schemas are) every input a run
 * of the agent is fired with must match. `fire` checks an input against the
 * schema the agent's workers registered before anything is written, and
 * refuses a mismatch with `invalid_input` and the issues found.
 */
import { ErrandError } from "@errand/core";
import { strictSchemaToZod } from "./strict-schema-zod.js";
import { type LocatedIssue, locateIssues } from "./validation-issues.js";

/** The most issues an `invalid_input` refusal's message lists (its `details.issues` holds them all). */
const ISSUES_IN_MESSAGE = 5;

/** Checks inputs against one agent's input schema. */
export type InputCheck = (input: unknown) => LocatedIssue[];

/**
 * A check of inputs against `schema` (already accepted by `preflightSchema`):
 * it answers the issues found, none for an input that matches. Patterns and
 * formats are matched in linear time (see `strictSchemaToZod`). Throws when
 * the schema cannot be compiled.
 */
export function compileInputSchema(schema: Record<string, unknown>): InputCheck {
  const validator = strictSchemaToZod(schema);
  return (input) => {
    const result = validator.safeParse(input);
    return result.success ? [] : locateIssues(result.error.issues);
  };
}

/**
 * The `invalid_input` refusal of an input of `agent` with `issues`: its
 * message lists the first few (`path: message`), `details.issues` all of them.
 */
export function invalidInput(agent: string, issues: readonly LocatedIssue[]): ErrandError {
  const listed = issues
    .slice(0, ISSUES_IN_MESSAGE)
    .map(({ path, message }) => `${path}: ${message}`);
  const more =
    issues.length > ISSUES_IN_MESSAGE ? ` (and ${issues.length - ISSUES_IN_MESSAGE} more)` : "";
  return new ErrandError(
    "invalid_input",
    `the input does not match agent ${JSON.stringify(agent)}'s inputSchema: ${listed.join("; ")}${more}; fix the input and send it again`,
    { details: { agent, issues } },
  );
}
