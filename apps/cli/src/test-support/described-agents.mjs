/**
 * An agents module for the CLI's tests: an agent that says what it is for
 * and what input it takes, so `fire` refuses any other input.
 */
import { defineAgent, scriptedModel } from "@errand/runtime";

/** Summarises a document: its input is `{ document, sentences }`. */
export const summarizer = defineAgent({
  name: "summarizer",
  description: "Summarises one document in a few sentences.",
  instructions: "Summarise the document.",
  model: scriptedModel(),
  inputSchema: {
    type: "object",
    properties: { document: { type: "string" }, sentences: { type: "integer" } },
    required: ["document", "sentences"],
    additionalProperties: false,
  },
  script: [{ say: "A short summary." }],
});
