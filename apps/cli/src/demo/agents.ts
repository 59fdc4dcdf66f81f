/**
 * The demo's agents. `demo-child` answers with a city and its population as
 * a structured output; `demo-parent` spawns children, collects them and
 * records how many succeeded, failed or were cancelled. On the scripted
 * model both play the script their input carries.
 */
import { parentTools } from "@errand/engine";
import { type Agent, defineAgent, type Model } from "@errand/runtime";
import { z } from "zod";

/** The child agent's name. */
export const DEMO_CHILD = "demo-child";

/** The parent agent's name. */
export const DEMO_PARENT = "demo-parent";

/** What a child records: the city it was asked about and its population. */
export const CityPopulation = z.object({
  city: z.string(),
  population: z.number().int(),
});

/** The child: one city, one structured answer. */
function demoChildAgent(model: Model): Agent {
  return defineAgent({
    name: DEMO_CHILD,
    instructions:
      "Your input names a city. Record that city and how many people live there (a whole number).",
    model,
    outputSchema: CityPopulation,
    maxSteps: 4,
    scriptFromInput: true,
  });
}

/** The parent, with the tools that spawn and collect children. */
function demoParentAgent(model: Model): Agent {
  return defineAgent({
    name: DEMO_PARENT,
    instructions: [
      "Your input lists children to run.",
      "1. Call spawn_agents once with `agents` set to your input's `children`, each item exactly as given.",
      "2. Call collect_agents with `wait: true` to collect every child you spawned. Its `total`, `succeeded`, `failed` and `cancelled` count every child, on every page; while `hasMore` is true, call it again with `nextCursor` to read the other children's results.",
      "3. Record those counts: how many children there were (total) and how many succeeded, failed and were cancelled.",
    ].join("\n"),
    model,
    tools: parentTools(),
    maxSteps: 8,
    scriptFromInput: true,
  });
}

/** Every demo agent, on `model`. */
export function demoAgents(model: Model): Agent[] {
  return [demoChildAgent(model), demoParentAgent(model)];
}
