/** The events in SSE bytes as stream readers write them: `[id, data]` pairs (id undefined when absent). */
export function sseEvents(bytes: Uint8Array | undefined): Array<[string | undefined, string]> {
  if (bytes === undefined) return [];
  const events: Array<[string | undefined, string]> = [];
  for (const block of new TextDecoder().decode(bytes).split("\n\n")) {
    if (block === "") continue;
    let id: string | undefined;
    let data = "";
    for (const line of block.split("\n")) {
      if (line.startsWith("id: ")) id = line.slice(4);
      else if (line.startsWith("data: ")) data = line.slice(6);
    }
    events.push([id, data]);
  }
  return events;
}
