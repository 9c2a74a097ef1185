/** The Traffic list's "Type" (DevTools' resource types), from what a row knows. */
import type { ExchangeSummary } from '../../../proxy/src/api/contract';

export type ResourceType = 'document' | 'stylesheet' | 'script' | 'image' | 'font' | 'media' | 'fetch' | 'websocket' | 'manifest' | 'other';

export const RESOURCE_TYPES: ReadonlyArray<{ type: ResourceType; label: string }> = [
  { type: 'fetch', label: 'Fetch/XHR' },
  { type: 'document', label: 'Doc' },
  { type: 'stylesheet', label: 'CSS' },
  { type: 'script', label: 'JS' },
  { type: 'font', label: 'Font' },
  { type: 'image', label: 'Img' },
  { type: 'media', label: 'Media' },
  { type: 'manifest', label: 'Manifest' },
  { type: 'websocket', label: 'WS' },
  { type: 'other', label: 'Other' },
];

/** Chrome HAR `_resourceType` values → our types. */
const CHROME_TYPES: Record<string, ResourceType> = {
  document: 'document',
  stylesheet: 'stylesheet',
  script: 'script',
  image: 'image',
  font: 'font',
  media: 'media',
  xhr: 'fetch',
  fetch: 'fetch',
  eventsource: 'fetch',
  websocket: 'websocket',
  manifest: 'manifest',
};

const EXT_TYPES: Record<string, ResourceType> = {
  js: 'script',
  mjs: 'script',
  css: 'stylesheet',
  png: 'image',
  jpg: 'image',
  jpeg: 'image',
  gif: 'image',
  webp: 'image',
  avif: 'image',
  svg: 'image',
  ico: 'image',
  woff: 'font',
  woff2: 'font',
  ttf: 'font',
  otf: 'font',
  mp4: 'media',
  webm: 'media',
  mp3: 'media',
  html: 'document',
  htm: 'document',
};

export function resourceTypeOf(
  row: Pick<ExchangeSummary, 'mimeType' | 'resourceType' | 'path' | 'transport'> & { websocket?: boolean },
): ResourceType {
  if (row.resourceType && CHROME_TYPES[row.resourceType]) return CHROME_TYPES[row.resourceType]!;
  if (row.websocket) return 'websocket';
  const m = row.mimeType;
  if (m) {
    if (m === 'text/html' || m === 'application/xhtml+xml') return 'document';
    if (m === 'text/css') return 'stylesheet';
    if (/javascript|ecmascript/.test(m)) return 'script';
    if (m.startsWith('image/')) return 'image';
    if (m.startsWith('font/') || /font-woff|font-ttf|vnd\.ms-fontobject/.test(m)) return 'font';
    if (m.startsWith('audio/') || m.startsWith('video/')) return 'media';
    if (m === 'application/manifest+json') return 'manifest';
    if (/json|xml|text\/plain|event-stream|grpc|protobuf/.test(m)) return 'fetch';
  }
  const ext = /\.([a-z0-9]+)(?:$|\?)/i.exec(row.path ?? '')?.[1]?.toLowerCase();
  if (ext && EXT_TYPES[ext]) return EXT_TYPES[ext]!;
  return 'other';
}
