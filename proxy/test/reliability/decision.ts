/** What a server decided on a byte sequence, as a comparable list of answers. */
export type Answer =
  { kind: 'request'; method: string; path: string; bodyLength: number } | { kind: 'status'; status: number } | { kind: 'garbage' };

export function formatAnswers(answers: Answer[]): string {
  if (!answers.length) return 'no answer';
  return answers
    .map((a) => {
      if (a.kind === 'status') return String(a.status);
      if (a.kind === 'garbage') return 'garbage';
      return `${a.method} ${a.path.length > 40 ? `${a.path.slice(0, 37)}...` : a.path} ${a.bodyLength}B`;
    })
    .join(' | ');
}
