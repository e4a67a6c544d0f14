/**
 * The figures `npm run pack:check` measures, as the docs show them (docs/packaging.md's table, the README's summary),
 * and the comparison that tells whether the documented ones are still true. Pure functions (scripts/pack-check.mjs
 * runs the measuring; test/docs/pack-figures.test.ts tests these).
 */
const mib = (bytes) =>
  bytes < 1024 * 1024 ? `${(bytes / 1024).toFixed(1)} KiB` : `${(bytes / 1024 / 1024).toFixed(1)} MiB`;

/** The figures table (markdown) from the tests' rows. */
export function figuresTable(rows) {
  const lines = [
    "| package | tarball | unpacked | install brings | `npm ls --all --parseable \\| wc -l` | " +
      "`du -sh node_modules` (apparent size) |",
    "| --- | --- | --- | --- | --- | --- |",
  ];
  for (const row of rows)
    lines.push(
      `| \`${row.package}\` | ${mib(row.tarballBytes)} | ${mib(row.unpackedBytes)}, ${row.files} files | ` +
        `${row.packages} package${row.packages === 1 ? "" : "s"} | ${row.lines} | ${row.du} (${mib(row.duBytes)}) |`,
    );
  return lines.join("\n");
}

/** The README's one-line summary of what installing the library brings. */
export function readmeSummary(rows) {
  const library = rows.find((row) => row.package === "@acpkit/sdk");
  const cli = rows.find((row) => row.package === "@acpkit/cli");
  return (
    `${library.packages} package, ${mib(library.duBytes)} installed; the programs: ` +
    `${cli.packages} packages, ${mib(cli.duBytes)}`
  );
}

/**
 * The numbers of two renderings of the same figures, compared: line counts exactly; sizes, file counts and package
 * counts within 10% (what npm installs from the registry for the CLI's declared ranges moves from week to week: 101
 * to 115 packages in one week, with nothing of ours changed). Returns what differs.
 */
export function compareFigures(documented, measured) {
  const numbers = (text) => [...text.matchAll(/(\d[\d,.]*)\s*(MiB|KiB|M|K|files|packages?)?/g)];
  const a = numbers(documented);
  const b = numbers(measured);
  if (a.length !== b.length) return [`documented: ${documented.trim()}\nmeasured:   ${measured.trim()}`];
  const out = [];
  a.forEach((match, i) => {
    const x = Number(match[1].replace(/,/g, ""));
    const y = Number(b[i][1].replace(/,/g, ""));
    const exact = match[2] === undefined;
    if (exact ? x !== y : Math.abs(x - y) > 0.1 * Math.max(x, y))
      out.push(`${match[0]} documented, ${b[i][0]} measured`);
  });
  return out;
}
