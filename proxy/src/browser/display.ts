/**
 * Whether a window can be shown here. On Linux and the BSDs a GUI needs an X11
 * or Wayland display; without one Chrome only runs headless (no window) and
 * xdg-open cannot open anything, so callers must say so instead of claiming
 * success.
 */
export function noDisplayReason(env: NodeJS.ProcessEnv = process.env, platform: NodeJS.Platform = process.platform): string | undefined {
  if (platform === 'darwin' || platform === 'win32') return undefined;
  if (env.DISPLAY || env.WAYLAND_DISPLAY) return undefined;
  return 'there is no display ($DISPLAY and $WAYLAND_DISPLAY are unset)';
}
