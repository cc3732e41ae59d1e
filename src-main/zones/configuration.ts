// A zone's (or the account's) security configuration, one change at a time: each call runs in
// the owning object as one atomic write (see transact), so a refused request changes nothing and
// a dry run answers without writing. The API routes and the renderer's bridge both come here.

import type { ManagedCatalog } from './catalog'
import { Firewall } from './firewall/firewall'
import { newVendorId, vendorTimestamp, type ZoneRegistry } from './registry'
import { Rulesets } from './rulesets/rulesets'

/** Whose rulesets: a zone's, or the account's. */
export type RulesetOwner = { zoneId: string } | { accountId: string }

export interface ChangeOptions {
  dryRun?: boolean
}

export class ZoneConfiguration {
  constructor(
    private readonly zones: ZoneRegistry,
    readonly catalog: ManagedCatalog,
    private readonly now: () => number = Date.now,
  ) {}

  private timestamp = () => vendorTimestamp(this.now())

  rulesets<R>(
    owner: RulesetOwner,
    work: (rulesets: Rulesets) => R,
    options: ChangeOptions = {},
  ): Promise<Awaited<R>> {
    const common = { catalog: this.catalog, now: this.timestamp, newId: newVendorId }
    if ('zoneId' in owner) {
      return this.zones.inZone(owner.zoneId, (zone) =>
        zone.change(
          () =>
            work(
              new Rulesets({
                ...common,
                store: zone.rulesets,
                scope: 'zone',
                basePath: `/zones/${owner.zoneId}`,
                describe: (note) => zone.describe(note),
              }),
            ),
          options,
        ),
      )
    }
    return this.zones.inAccount(owner.accountId, (account) =>
      account.change(
        () =>
          work(
            new Rulesets({
              ...common,
              store: account.rulesets,
              scope: 'account',
              basePath: `/accounts/${owner.accountId}`,
              describe: (note) => account.describe(note),
            }),
          ),
        options,
      ),
    )
  }

  firewall<R>(zoneId: string, work: (firewall: Firewall) => R): Promise<Awaited<R>> {
    return this.zones.inZone(zoneId, (zone, record) =>
      zone.change(() =>
        work(
          new Firewall({
            store: zone.firewall,
            plan: record.plan,
            basePath: `/zones/${zoneId}`,
            now: this.timestamp,
            newId: newVendorId,
            describe: (note) => zone.describe(note),
          }),
        ),
      ),
    )
  }
}
