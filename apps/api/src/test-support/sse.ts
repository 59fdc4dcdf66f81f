/**
 * Reading a server-sent-event stream in a test: every event (its name, id
 * and parsed data) until one named `end`, or the stream closing. Test-only.
 */

/** One event of a stream. */
export interface SseEvent {
  event: string;
  id?: string;
  data: unknown;
}

/** The events of `body` up to and with the first `end`; comment lines (keep-alives) skipped. */
export async function readEvents(body: ReadableStream<Uint8Array>): Promise<SseEvent[]> {
  const events: SseEvent[] = [];
  const decoder = new TextDecoder();
  let buffered = "";
  const reader = body.getReader();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return events;
      buffered += decoder.decode(value, { stream: true });
      let end = buffered.indexOf("\n\n");
      while (end >= 0) {
        const block = buffered.slice(0, end);
        buffered = buffered.slice(end + 2);
        end = buffered.indexOf("\n\n");
        const fields = new Map<string, string>();
        for (const line of block.split("\n")) {
          if (line.startsWith(":") || line === "") continue;
          const colon = line.indexOf(":");
          fields.set(line.slice(0, colon), line.slice(colon + 1).trimStart());
        }
        if (!fields.has("data")) continue;
        const id = fields.get("id");
        const event = {
          event: fields.get("event") ?? "message",
          ...(id === undefined ? {} : { id }),
          data: JSON.parse(fields.get("data")!),
        };
        events.push(event);
        if (event.event === "end") return events;
      }
    }
  } finally {
    await reader.cancel().catch(() => {});
  }
}
