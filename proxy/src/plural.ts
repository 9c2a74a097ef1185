/** "1 entry", "2 entries", "1,024 requests": a count with its noun in the right number (CLI and core messages). */
export function plural(n: number, one: string, many = `${one}s`): string {
  return `${n.toLocaleString('en-US')} ${n === 1 ? one : many}`;
}
