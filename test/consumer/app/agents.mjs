// The agents your workers run. The scripted model plays each agent's script, so
// no model is needed; give an agent openaiModel({ model: "gpt-4o-mini" }) instead
// (with OPENAI_API_KEY set) to run it on a real one.
import { defineAgent, scriptedModel } from "@errand/runtime";
import { z } from "zod";

/** What every city-reporter run records. */
const CityReport = z.object({ city: z.string(), population: z.number().int() });

/** Answers with text. */
export const greeter = defineAgent({
  name: "greeter",
  instructions: "Greet the person named in your input.",
  model: scriptedModel(),
  script: [{ say: "Hello, Ada!" }],
});

/** Records a structured output in its own schema: every run of it must. */
export const cityReporter = defineAgent({
  name: "city-reporter",
  instructions: "Record the city named in your input and its population.",
  model: scriptedModel(),
  outputSchema: CityReport,
  script: [{ call: [{ tool: "structured_output", args: { city: "Lyon", population: 522250 } }] }],
});
