/**
 * Agents for the tests of `errand mcp`, loaded by a spawned `errand worker
 * --agents`: `echo` plays the script of its input; `summarizer` takes
 * `{ document }` alone (its input schema refuses anything else); `approver`
 * asks a person for `{ approve: boolean }`, then plays the rest of its script.
 */
import { askTool, defineAgent, scriptedModel } from "@errand/runtime";

export const echo = defineAgent({
  name: "echo",
  description: "Plays the script it is given.",
  instructions: "Play your script.",
  model: scriptedModel(),
  scriptFromInput: true,
});

export const summarizer = defineAgent({
  name: "summarizer",
  description: "Summarises one document.",
  instructions: "Summarise the document.",
  model: scriptedModel(),
  inputSchema: {
    type: "object",
    properties: { document: { type: "string" } },
    required: ["document"],
    additionalProperties: false,
  },
  script: [{ say: "A short summary." }],
});

export const approver = defineAgent({
  name: "approver",
  description: "Asks a person to approve, then says what it was told.",
  instructions: "Ask for approval.",
  model: scriptedModel(),
  tools: [
    askTool({
      answerSchema: {
        type: "object",
        properties: { approve: { type: "boolean" } },
        required: ["approve"],
        additionalProperties: false,
      },
    }),
  ],
  scriptFromInput: true,
});
