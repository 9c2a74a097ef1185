/**
 * Session names are unique, so every command that takes "id or name" works by
 * name too: a second import of "page" becomes "page (2)", then "page (3)"…
 */
export function uniqueName(wanted: string, taken: Iterable<string>): string {
  const names = new Set(taken);
  if (!names.has(wanted)) return wanted;
  // "page (2)" imported again becomes "page (3)", not "page (2) (2)".
  const base = /^(.*) \((\d+)\)$/.exec(wanted)?.[1] ?? wanted;
  for (let n = 2; ; n++) {
    const candidate = `${base} (${n})`;
    if (!names.has(candidate)) return candidate;
  }
}
