// The request description the simulator and replay take (the shape `requestContext` reads), as a
// schema: the workbench API validates simulate bodies and replayed lines with it.

import { Type, type Static } from 'typebox'

export const SimulatedRequest = Type.Object(
  {
    method: Type.String({ minLength: 1, maxLength: 32 }),
    url: Type.String({ minLength: 1, maxLength: 65_536 }),
    headers: Type.Optional(
      Type.Record(Type.String(), Type.Union([Type.String(), Type.Array(Type.String())])),
    ),
    body: Type.Optional(Type.String()),
    ip: Type.Optional(Type.String()),
    country: Type.Optional(Type.String({ pattern: '^[A-Z]{2}$' })),
    asn: Type.Optional(Type.Integer({ minimum: 0 })),
    continent: Type.Optional(Type.String()),
    botScore: Type.Optional(Type.Integer({ minimum: 1, maximum: 99 })),
    threatScore: Type.Optional(Type.Integer({ minimum: 0, maximum: 100 })),
    wafScores: Type.Optional(
      Type.Object({
        score: Type.Optional(Type.Integer({ minimum: 1, maximum: 100 })),
        sqli: Type.Optional(Type.Integer({ minimum: 1, maximum: 100 })),
        xss: Type.Optional(Type.Integer({ minimum: 1, maximum: 100 })),
        rce: Type.Optional(Type.Integer({ minimum: 1, maximum: 100 })),
      }),
    ),
    verifiedBot: Type.Optional(Type.Boolean()),
    httpVersion: Type.Optional(Type.String()),
    tlsVersion: Type.Optional(Type.String()),
  },
  // Corpus lines carry labels and notes of their own; they are not part of the request.
  { additionalProperties: true },
)
export type SimulatedRequest = Static<typeof SimulatedRequest>
