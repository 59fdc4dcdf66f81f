/**
 * Message contents on spans (prompts, answers, tool arguments and results):
 * off unless the host turns them on, and when on, redacted by the project's
 * one pass (`redactSecrets`: keys, pairs, JSON held as text, free text), then
 * `redactSecretText` over the JSON (a key of its own may quote a secret),
 * as errand's logs are.
 */
import { redactSecrets, redactSecretText } from "@errand/core";
import type { Span } from "@opentelemetry/api";

/** `value` as the JSON text a content attribute carries, its secrets redacted. */
function redactedContent(value: unknown): string {
  return redactSecretText(JSON.stringify(redactSecrets(value)) ?? "null");
}

/**
 * Sets attribute `key` to the redacted JSON of `value()` when contents are
 * on and `span` records; `value` is not even called otherwise.
 */
export function setContentAttribute(
  span: Span,
  recordContent: boolean,
  key: string,
  value: () => unknown,
): void {
  if (recordContent && span.isRecording()) span.setAttribute(key, redactedContent(value()));
}
