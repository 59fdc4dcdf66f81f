/**
 * A model held at its first request, for tests that fault Redis while a run
 * is mid-step: it answers once the test releases it.
 */
import type { Model } from "@errand/runtime";

/** A model that answers once `release` is called; `inside` resolves when it is asked. */
export function gatedModel() {
  let release = () => {};
  let entered = () => {};
  const released = new Promise<void>((resolve) => {
    release = resolve;
  });
  const inside = new Promise<void>((resolve) => {
    entered = resolve;
  });
  const model: Model = {
    name: "gated",
    supportsTools: true,
    async respond() {
      entered();
      await released;
      return {
        text: "done",
        calls: [],
        usage: { inputTokens: 1, outputTokens: 1 },
        finish: "stop",
      };
    },
  };
  return { model, release, inside };
}
