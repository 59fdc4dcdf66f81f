/**
 * A run's live deltas as terminal text (`errand runs tail --stream`): a
 * header line opens each model request, text follows as written, and each
 * tool call's arguments follow its name.
 */
import type { LiveEntry } from "@errand/core";

/** What to print for `delta`, the one printed before it being `previous`. */
export function deltaText(previous: LiveEntry | undefined, delta: LiveEntry): string {
  const lineBreak = previous === undefined ? "" : "\n";
  if (delta.type === "start") {
    const again = delta.attempt > 1 ? `, attempt ${delta.attempt}` : "";
    return `${lineBreak}── step ${delta.step}${again} ──\n`;
  }
  if (delta.type === "text") return delta.text;
  const continues =
    previous?.type === "tool-arguments" &&
    previous.index === delta.index &&
    previous.step === delta.step;
  return continues ? delta.text : `${lineBreak}→ ${delta.name ?? "tool"} ${delta.text}`;
}
