/**
 * IPC channel names shared by main and preload. No imports: the sandboxed
 * preload bundle stays tiny and never pulls Node code in.
 */
export const COMMAND_CHANNEL_PREFIX = 'netlens:cmd:';
/** Core events (already batched by the core service) pushed main → renderer. */
export const EVENT_CHANNEL = 'netlens:event';

/**
 * Menu actions the UI has to carry out (switch to the Lab, show a session),
 * main → preload, which re-posts them to the page as a `message` event
 * `{ netlensMenu: MenuMessage }`: nothing is added to `window.netlens`.
 */
export const MENU_CHANNEL = 'netlens:menu';
export type MenuMessage = { action: 'new-lab-run' } | { action: 'open-session'; id: string };

export const commandChannel = (name: string): string => `${COMMAND_CHANNEL_PREFIX}${name}`;

/** What every command handler answers: never a thrown error (those lose their `code` over IPC). */
export type IpcReply = { ok: true; result: unknown } | { ok: false; error: { code: string; message: string } };
