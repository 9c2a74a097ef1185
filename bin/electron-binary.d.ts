/** Where the electron package's binary is, or why there is none (never downloads it). */
export function installedElectron(fromUrl?: string): { binary: string } | { reason: string };
