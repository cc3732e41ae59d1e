// Zone bundles: a zone's whole configuration as one JSON document (src-shared/api/bundle.ts),
// exported and imported here, and compared resource by resource (for imports, and for the plans
// that later compare a zone with a remote one).

export { Bundles, type BundlesOptions, type ImportOptions } from './bundles'
export { diffConfigurations } from './diff'
export { bundleText, checkBundle } from './document'
export { Remote, type ApplyProgress, type RemoteOptions } from './remote'
