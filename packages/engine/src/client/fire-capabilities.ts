/**
 * The checks `fire` makes against what the agent's model honours, read from
 * the agent's registration (its model's `capabilities`, written by a worker)
 * rather than from a model: a structured-output schema holding a keyword the
 * provider refuses (`schema_not_supported`, naming the keyword and the
 * provider), and per-run model settings the model refuses, alone or with the
 * agent's own (`settings_not_supported`). Both are refused before anything
 * is written (docs/architecture/firing.md#preflight), rather than by a
 * provider's 400 in the middle of a run.
 */
import { ErrandError } from "@errand/core";
import { ModelSettings, type RunModelSettings } from "@errand/runtime";
import {
  runModelSettings,
  schemaCapabilityRefusal,
  settingsCapabilityRefusal,
} from "@errand/runtime/ops";
import type { AgentRegistration } from "../queues/registry.js";

/**
 * Throws `schema_not_supported` when the model of `registration` declares a
 * keyword of `schema` (accepted by preflight) it refuses; `details` carries
 * the agent, the keyword, its path and the provider.
 */
export function checkSchemaCapability(
  registration: AgentRegistration,
  schema: Record<string, unknown>,
): void {
  const { capabilities } = registration;
  if (capabilities === undefined) return;
  const refusal = schemaCapabilityRefusal(capabilities, schema);
  if (refusal === undefined) return;
  throw new ErrandError(
    "schema_not_supported",
    `agent ${registration.name}: ${refusal.message}; fire it with a schema without ${refusal.keyword}, or run the agent on another model`,
    {
      details: {
        agent: registration.name,
        keyword: refusal.keyword,
        path: refusal.path,
        provider: refusal.provider,
      },
    },
  );
}

function settingsNotSupported(registration: AgentRegistration, problem: string): never {
  throw new ErrandError(
    "settings_not_supported",
    `agent ${registration.name}: ${problem}; fire it without those modelSettings`,
    {
      details: {
        agent: registration.name,
        ...(registration.capabilities === undefined
          ? {}
          : { provider: registration.capabilities.provider }),
      },
    },
  );
}

/** The agent's own settings as its registration carries them; `{}` for none (or a newer worker's unknown ones). */
function agentSettings(registration: AgentRegistration): ModelSettings {
  const parsed = ModelSettings.safeParse(registration.modelSettings ?? {});
  return parsed.success ? parsed.data : {};
}

/**
 * Throws `settings_not_supported` when the model of `registration` refuses
 * the run's `settings` over the agent's: a model that takes no settings, one
 * that declares no capabilities (nothing to check them by), or one whose
 * capabilities refuse a setting or a pair of them.
 */
export function checkRunSettings(
  registration: AgentRegistration,
  settings: RunModelSettings,
): void {
  if (registration.takesSettings !== true) {
    settingsNotSupported(registration, "its model takes no model settings");
  }
  const { capabilities } = registration;
  if (capabilities === undefined) {
    settingsNotSupported(
      registration,
      "its model declares no capabilities, so settings given per run cannot be checked before the run starts (give them in the agent's modelSettings)",
    );
  }
  const merged = runModelSettings(agentSettings(registration), settings);
  const refusal = settingsCapabilityRefusal(capabilities, merged);
  if (refusal !== undefined) settingsNotSupported(registration, refusal);
}
