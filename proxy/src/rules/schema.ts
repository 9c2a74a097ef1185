/**
 * The JSON Schema of a rules file: the one source of truth for validation
 * (validate.ts) and for the published docs/rules.schema.json
 * (scripts/rules-schema.ts writes it). Keep in step with types.ts.
 */
const str = { type: 'string' } as const;
const regexObj = {
  type: 'object',
  required: ['regex'],
  additionalProperties: false,
  properties: { regex: str, flags: { type: 'string', pattern: '^[dgimsuy]*$' } },
} as const;
const pattern = { oneOf: [str, regexObj] } as const;
const stringMap = { type: 'object', additionalProperties: str } as const;
const headerEdits = {
  type: 'object',
  additionalProperties: false,
  properties: { add: stringMap, set: stringMap, remove: { type: 'array', items: str } },
} as const;
const bodyEdits = {
  type: 'object',
  additionalProperties: false,
  properties: {
    replace: {
      type: 'array',
      items: {
        type: 'object',
        required: ['regex', 'with'],
        additionalProperties: false,
        properties: { regex: str, flags: regexObj.properties.flags, with: str },
      },
    },
    jsonMergePatch: {},
    text: str,
  },
} as const;
const status = { type: 'integer', minimum: 100, maximum: 999 } as const;
const port = { type: 'integer', minimum: 1, maximum: 65535 } as const;
const ms = { type: 'number', minimum: 0, maximum: 3_600_000 } as const;

const matcher = {
  type: 'object',
  additionalProperties: false,
  properties: {
    method: { oneOf: [str, { type: 'array', items: str, minItems: 1 }] },
    scheme: { enum: ['http', 'https', 'ws', 'wss'] },
    host: pattern,
    port: { oneOf: [port, { type: 'array', items: port, minItems: 1 }] },
    path: pattern,
    query: { type: 'object', additionalProperties: { oneOf: [{ type: 'boolean' }, str, regexObj] } },
    headers: {
      type: 'array',
      items: {
        type: 'object',
        required: ['name'],
        additionalProperties: false,
        properties: { name: { type: 'string', minLength: 1 }, present: { type: 'boolean' }, equals: str, regex: str },
      },
    },
    body: {
      type: 'object',
      additionalProperties: false,
      minProperties: 1,
      properties: {
        contains: str,
        regex: str,
        json: {
          type: 'object',
          required: ['path'],
          additionalProperties: false,
          properties: { path: { type: 'string', minLength: 1 }, equals: {}, regex: str, exists: { type: 'boolean' } },
        },
      },
    },
    httpVersion: { enum: ['http/1.0', 'http/1.1', 'h2'] },
    filter: str,
  },
} as const;

/** Each action's own fields, chosen by `type` (if/then keeps errors pointing at the field). */
const actionShapes = {
  mock: {
    properties: {
      type: {},
      status,
      headers: stringMap,
      body: str,
      bodyFile: { type: 'string', minLength: 1 },
      har: {
        type: 'object',
        required: ['file', 'url'],
        additionalProperties: false,
        properties: {
          file: { type: 'string', minLength: 1 },
          url: { type: 'string', minLength: 1 },
          method: { type: 'string', minLength: 1 },
        },
      },
    },
    // One body source: inline text, a file, or a recorded response.
    not: { anyOf: [{ required: ['body', 'bodyFile'] }, { required: ['body', 'har'] }, { required: ['bodyFile', 'har'] }] },
  },
  rewriteRequest: {
    properties: {
      type: {},
      url: {
        type: 'object',
        additionalProperties: false,
        properties: {
          scheme: { enum: ['http', 'https'] },
          host: { type: 'string', minLength: 1 },
          port,
          path: { type: 'string', pattern: '^/' },
          query: { type: 'object', additionalProperties: { type: ['string', 'null'] } },
        },
      },
      headers: headerEdits,
      body: bodyEdits,
    },
  },
  rewriteResponse: {
    properties: {
      type: {},
      status,
      headers: headerEdits,
      body: bodyEdits,
      stripCacheControl: { type: 'boolean' },
      addCors: { type: 'boolean' },
      injectScript: { type: 'string', minLength: 1 },
    },
  },
  delay: { required: ['before', 'ms'], properties: { type: {}, before: { enum: ['request', 'response'] }, ms } },
  throttle: {
    properties: {
      type: {},
      profile: str,
      downloadKbps: { type: 'number', exclusiveMinimum: 0 },
      uploadKbps: { type: 'number', exclusiveMinimum: 0 },
      latencyMs: ms,
    },
    anyOf: [{ required: ['profile'] }, { required: ['downloadKbps'] }, { required: ['uploadKbps'] }, { required: ['latencyMs'] }],
  },
  fault: {
    required: ['fault'],
    properties: {
      type: {},
      fault: { enum: ['close', 'reset', 'timeout', 'trickle', 'truncate'] },
      ms,
      bytes: { type: 'integer', minimum: 0 },
      intervalMs: { type: 'number', minimum: 1, maximum: 60_000 },
    },
  },
  breakpoint: {
    required: ['on'],
    properties: { type: {}, on: { enum: ['request', 'response'] }, timeoutMs: { type: 'number', minimum: 0, maximum: 600_000 } },
  },
} as const;

export const ACTION_TYPES = Object.keys(actionShapes);

const action = {
  type: 'object',
  required: ['type'],
  properties: { type: { enum: ACTION_TYPES } },
  allOf: Object.entries(actionShapes).map(([type, shape]) => ({
    if: { properties: { type: { const: type } }, required: ['type'] },
    then: { additionalProperties: false, ...shape },
  })),
};

export const rulesSchema = {
  $schema: 'http://json-schema.org/draft-07/schema#',
  title: 'Netlens rules file',
  description: 'Rules that mock, rewrite, delay, throttle or break requests going through the Netlens proxy. See docs/rules.md.',
  type: 'object',
  required: ['version', 'rules'],
  additionalProperties: false,
  properties: {
    $schema: str,
    version: { const: 1 },
    rules: {
      type: 'array',
      items: {
        type: 'object',
        required: ['id', 'match', 'actions'],
        additionalProperties: false,
        properties: {
          id: { type: 'string', minLength: 1 },
          name: str,
          enabled: { type: 'boolean' },
          match: matcher,
          actions: { type: 'array', minItems: 1, items: action },
          continue: { type: 'boolean' },
        },
      },
    },
  },
};
