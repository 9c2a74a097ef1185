/**
 * Copies text to the clipboard. The async Clipboard API needs a secure context and focus;
 * Electron and http://127.0.0.1 have one, but a denied permission falls back to execCommand.
 */
export async function copyText(text: string): Promise<void> {
  try {
    await navigator.clipboard.writeText(text);
    return;
  } catch {
    // fall through to the older way
  }
  const area = document.createElement('textarea');
  area.value = text;
  area.style.position = 'fixed';
  area.style.opacity = '0';
  document.body.appendChild(area);
  area.select();
  const ok = document.execCommand('copy');
  area.remove();
  if (!ok) throw new Error('the browser refused clipboard access: select the command and copy it by hand');
}
