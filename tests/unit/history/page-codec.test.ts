import fc from 'fast-check'
import { expect, it } from 'vitest'
import { decodePages, encodePages } from '../../../src-main/storage/history/page-codec'
import type { PageImage } from '../../../src-main/storage/history/wal'

const PAGE_SIZE = 512

/** A page's next image: its current bytes with a few spans overwritten, or wholly new bytes. */
const edit = fc.oneof(
  fc.record({
    kind: fc.constant('spans' as const),
    spans: fc.array(
      fc.record({
        at: fc.nat(PAGE_SIZE - 1),
        bytes: fc.uint8Array({ minLength: 1, maxLength: 40 }),
      }),
      { minLength: 1, maxLength: 4 },
    ),
  }),
  fc.record({
    kind: fc.constant('whole' as const),
    bytes: fc.uint8Array({ minLength: PAGE_SIZE, maxLength: PAGE_SIZE }),
  }),
)

const write = fc.record({ pageNumber: fc.integer({ min: 1, max: 6 }), edit })

/** Whether the encoder is told a page's reference: it must decode the same either way. */
const knowledge = fc.func(fc.boolean())

type Edit = typeof edit extends fc.Arbitrary<infer T> ? T : never

function applyEdit(current: Buffer, next: Edit): Buffer {
  if (next.kind === 'whole') return Buffer.from(next.bytes)
  const image = Buffer.from(current)
  for (const span of next.spans) Buffer.from(span.bytes).copy(image, span.at)
  return image
}

it('decodes every page image of every record exactly, however much the encoder knew', () => {
  fc.assert(
    fc.property(
      fc.uint8Array({ minLength: 3 * PAGE_SIZE, maxLength: 3 * PAGE_SIZE }),
      fc.array(fc.array(write, { minLength: 1, maxLength: 8 }), { minLength: 1, maxLength: 8 }),
      knowledge,
      (snapshot, records, knows) => {
        // the file as the encoder and the decoder see it: the snapshot, then every image written
        const page = (state: Map<number, Buffer>, pageNumber: number): Buffer => {
          const start = (pageNumber - 1) * PAGE_SIZE
          const image = Buffer.alloc(PAGE_SIZE)
          ;(state.get(pageNumber) ?? Buffer.from(snapshot).subarray(start, start + PAGE_SIZE)).copy(
            image,
          )
          return image
        }
        const encoderState = new Map<number, Buffer>()
        const decoderState = new Map<number, Buffer>()
        for (const writes of records) {
          const pages: PageImage[] = []
          const imageOf = new Map(encoderState)
          for (const { pageNumber, edit: next } of writes) {
            const data = applyEdit(imageOf.get(pageNumber) ?? page(encoderState, pageNumber), next)
            imageOf.set(pageNumber, data)
            pages.push({ pageNumber, data })
          }
          const encoded = encodePages(
            PAGE_SIZE,
            pages,
            (pageNumber) =>
              knows(pageNumber, pages.length) ? page(encoderState, pageNumber) : null,
            (written) => encoderState.set(written.pageNumber, Buffer.from(written.data)),
          )
          const decoded: PageImage[] = []
          decodePages(
            PAGE_SIZE,
            encoded,
            (pageNumber) => page(decoderState, pageNumber),
            (image) => {
              decoded.push({ pageNumber: image.pageNumber, data: Buffer.from(image.data) })
              decoderState.set(image.pageNumber, Buffer.from(image.data))
            },
          )
          expect(decoded).toEqual(pages)
        }
      },
    ),
    { numRuns: 300 },
  )
})

it('stores a small edit of a known page in a few bytes, and a page it does not know whole', () => {
  const reference = Buffer.alloc(4096)
  for (let i = 0; i < reference.length; i++) reference[i] = (i * 7919) % 251
  const image = Buffer.from(reference)
  image.write('a changed row', 2000)
  const pages = [{ pageNumber: 3, data: image }]
  const known = encodePages(
    4096,
    pages,
    () => reference,
    () => undefined,
  )
  const unknown = encodePages(
    4096,
    pages,
    () => null,
    () => undefined,
  )
  expect(known.stream.length).toBeLessThan(64)
  expect(unknown.stream.length).toBeGreaterThan(256)
})
