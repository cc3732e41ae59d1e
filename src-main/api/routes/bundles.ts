// /workbench/v1: a zone's configuration as a bundle (src-shared/api/bundle.ts). Export answers
// the file itself, to be saved as it comes: the bundle, or made from it a Terraform file
// (bundles/terraform.ts) or a curl script (bundles/curl.ts); import takes a bundle and creates or
// replaces the zone it names, `?dry_run=true` answering the changes without writing them; a
// Terraform file (text/plain, or ?format=terraform) is read into a bundle first
// (bundles/terraform-import.ts) for the zone `?zone_name=` names.

import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from 'typebox'
import { ZONE_PLANS } from '@shared/api/zones'
import { badRequest } from '@shared/api/errors'
import { bundleText, type Bundles } from '../../bundles'
import { curlScript } from '../../bundles/curl'
import { TERRAFORM_PROVIDERS, terraformText } from '../../bundles/terraform'
import { terraformBundle } from '../../bundles/terraform-import'
import type { Clock } from '../../objects'
import { ok } from '../envelope'
import { BUNDLE_ERRORS } from '@shared/api/error-codes'

const EXPORT_FORMATS = ['bundle', 'terraform', 'curl'] as const
const IMPORT_FORMATS = ['bundle', 'terraform'] as const

export const bundleRoutes: FastifyPluginAsyncTypebox<{ bundles: Bundles; clock: Clock }> = async (
  app,
  { bundles, clock },
) => {
  app.get(
    '/zones/:zone_id/export',
    {
      schema: {
        params: Type.Object({ zone_id: Type.String() }),
        querystring: Type.Object({
          format: Type.Optional(Type.String({ maxLength: 64 })),
          provider: Type.Optional(Type.String({ maxLength: 64 })),
        }),
      },
    },
    async (request, reply) => {
      const { format = 'bundle', provider = 'v5' } = request.query
      if (!(EXPORT_FORMATS as readonly string[]).includes(format)) {
        throw badRequest(
          BUNDLE_ERRORS.unknownFormat,
          `Unknown export format ${JSON.stringify(format)}: use ${EXPORT_FORMATS.join(', ')}`,
        )
      }
      const terraformProvider = TERRAFORM_PROVIDERS.find((known) => known === provider)
      if (format === 'terraform' && terraformProvider === undefined) {
        throw badRequest(
          BUNDLE_ERRORS.unknownFormat,
          `Unknown Terraform provider ${JSON.stringify(provider)}: use ${TERRAFORM_PROVIDERS.join(', ')}`,
        )
      }
      const bundle = await bundles.exportBundle(request.params.zone_id)
      const name = bundle.zone.name
      if (terraformProvider !== undefined && format === 'terraform') {
        return reply
          .type('text/plain; charset=utf-8')
          .header('content-disposition', `attachment; filename="${name}.tf"`)
          .send(terraformText(bundle, terraformProvider))
      }
      if (format === 'curl') {
        return reply
          .type('text/x-shellscript; charset=utf-8')
          .header('content-disposition', `attachment; filename="${name}.sh"`)
          .send(curlScript(bundle))
      }
      return reply
        .type('application/json; charset=utf-8')
        .header('content-disposition', `attachment; filename="${name}.zone-workbench.json"`)
        .send(bundleText(bundle))
    },
  )

  // A Terraform file arrives as text; the route's body limit bounds it before it is read.
  app.addContentTypeParser('text/plain', { parseAs: 'string' }, (_request, body, done) =>
    done(null, body),
  )

  app.post(
    '/zones/import',
    {
      schema: {
        querystring: Type.Object({
          dry_run: Type.Optional(Type.Boolean()),
          format: Type.Optional(Type.String({ maxLength: 64 })),
          zone_name: Type.Optional(Type.String({ maxLength: 253 })),
          plan: Type.Optional(Type.String({ maxLength: 64 })),
          file_name: Type.Optional(Type.String({ maxLength: 255 })),
        }),
      },
    },
    async (request) => {
      const { dry_run: dryRun, zone_name: zoneName, plan, file_name: fileName } = request.query
      const format =
        request.query.format ?? (typeof request.body === 'string' ? 'terraform' : 'bundle')
      if (!(IMPORT_FORMATS as readonly string[]).includes(format)) {
        throw badRequest(
          BUNDLE_ERRORS.unknownFormat,
          `Unknown import format ${JSON.stringify(format)}: use ${IMPORT_FORMATS.join(', ')}`,
        )
      }
      if (format === 'bundle') return ok(await bundles.importBundle(request.body, { dryRun }))
      if (typeof request.body !== 'string') {
        throw badRequest(
          BUNDLE_ERRORS.terraform,
          'A Terraform file is sent as the body, with Content-Type: text/plain',
        )
      }
      if (zoneName === undefined || zoneName === '') {
        throw badRequest(
          BUNDLE_ERRORS.terraform,
          'A Terraform file names no zone: say which with ?zone_name=',
        )
      }
      const zonePlan = ZONE_PLANS.find((known) => known === plan)
      if (plan !== undefined && zonePlan === undefined) {
        throw badRequest(
          BUNDLE_ERRORS.terraform,
          `Unknown plan ${JSON.stringify(plan)}: use ${ZONE_PLANS.join(', ')}`,
        )
      }
      const bundle = terraformBundle(request.body, {
        fileName: fileName ?? `${zoneName}.tf`,
        zoneName,
        plan: zonePlan,
        existing: await bundles.bundleOfZoneNamed(zoneName),
        now: clock.now(),
      })
      return ok(await bundles.importBundle(bundle, { dryRun }))
    },
  )
}
