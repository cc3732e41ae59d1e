// The object runtime: namespaces of stateful objects, each instance constructed as
// `new Class(ctx, env)` with `ctx.storage`, `ctx.id` and `ctx.abort(reason)`.
//
//   const zones = new ObjectNamespace({ directory: join(dataDir, 'objects/zone'), objectClass: Zone, env })
//   const rules = await zones.call(zones.idFromName(zoneId), (zone) => zone.listRules())
export { ObjectNamespace, type NamespaceOptions } from './namespace'
export {
  BLOCK_CONCURRENCY_TIMEOUT_MS,
  MAX_BLOCK_CONCURRENCY_DEPTH,
  type ObjectClass,
  type ObjectContext,
  type ObjectId,
  type ResetError,
} from './object-host'
export { ALARM_MAX_RETRIES, type AlarmInvocationInfo } from './alarm-scheduler'
export { systemClock, type Clock } from './clock'
