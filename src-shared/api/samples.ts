// A zone's saved sample requests (`/workbench/v1/zones/{zone_id}/samples`): named requests with
// the outcome they should get, kept in the zone's object so that they travel with its bundle.
// The vendor has no such resource; the request is the description the simulate route takes.

import { Type, type Static } from 'typebox'
import { OUTCOMES, SimulatedRequest } from './simulate'

/** A sample's request: what simulate takes, with its sizes bounded and nothing else kept. */
export const SampleRequestDescription = Type.Object(
  {
    ...SimulatedRequest.properties,
    headers: Type.Optional(
      Type.Record(
        Type.String({ maxLength: 256 }),
        Type.Union([
          Type.String({ maxLength: 8192 }),
          Type.Array(Type.String({ maxLength: 8192 }), { maxItems: 64 }),
        ]),
        { maxProperties: 128 },
      ),
    ),
    body: Type.Optional(Type.String({ maxLength: 1_048_576 })),
    ip: Type.Optional(Type.String({ maxLength: 64 })),
    continent: Type.Optional(Type.String({ maxLength: 2 })),
    httpVersion: Type.Optional(Type.String({ maxLength: 16 })),
    tlsVersion: Type.Optional(Type.String({ maxLength: 16 })),
  },
  { additionalProperties: false },
)
export type SampleRequestDescription = Static<typeof SampleRequestDescription>

/** What POST and PUT take. */
export const SampleBody = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 200 }),
    expected: Type.Enum(OUTCOMES),
    request: SampleRequestDescription,
  },
  { additionalProperties: false },
)
export type SampleBody = Static<typeof SampleBody>

/** A sample as the API answers it and a bundle carries it. */
export const Sample = Type.Object(
  {
    id: Type.String({ pattern: '^[0-9a-f]{32}$' }),
    ...SampleBody.properties,
    created_on: Type.String({ minLength: 1, maxLength: 64 }),
    modified_on: Type.String({ minLength: 1, maxLength: 64 }),
  },
  { additionalProperties: false },
)
export type Sample = Static<typeof Sample>
