/**
 * A `node --test` reporter for scripts/test-lane.mjs: writes one line per test file, `<seconds>\t<file>`, with the
 * file's whole time (from its start to its end, hooks included), so that the lane can name its slowest files.
 * Nothing else; the lane's TAP output is a separate reporter.
 */
export default async function* fileTimes(source) {
  for await (const event of source) {
    // Each file is itself a top-level test named by its path; its `test:complete` carries the file's duration.
    if (event.type !== "test:complete" || event.data.nesting !== 0) continue;
    const { name, file, details } = event.data;
    if (file === undefined || name !== file) continue;
    yield `${(details.duration_ms / 1000).toFixed(1)}\t${file}\n`;
  }
}
