/** What a server decided on a byte sequence, as a comparable list of answers. */
export type Answer =
  | { kind: 'request'; method: string; path: string; bodyLength: number }
  | { kind: 'status'; status: number }
  | { kind: 'garbage' };

export function formatAnswers(answers: Answer[]): string {
  if (!answers.length) return 'no answer';
  return answers
    .map((a) => (a.kind === 'request' ? `${a.method} ${a.path.length > 40 ? `${a.path.slice(0, 37)}...` : a.path} ${a.bodyLength}B` : a.kind === 'status' ? String(a.status) : 'garbage'))
    .join(' | ');
}
