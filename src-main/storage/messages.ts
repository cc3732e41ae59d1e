// Error texts of the vendor's runtime that more than one module raises, verbatim.

export const NOT_SQL_BACKED = 'Durable Object is not backed by SQL.'

export const NO_SQL_ON_KV_BACKEND =
  'This Durable Object is not backed by SQLite storage, so the SQL API is not available. SQL can be enabled on a new Durable Object class by using the `new_sqlite_classes` instead of `new_classes` under `[[migrations]]` in your wrangler.toml, but an already-deployed class cannot be converted to SQLite (except by deleting the existing data).'

// The runtime's text, "asyncronous" included.
export const NO_SYNC_KV_ON_KV_BACKEND =
  "The storage.kv (synchronous KV) API is only available for SQLite-backed Durable Objects, but this object's namespace is not declared to use SQLite. You can use the older, asyncronous interface via methods of `storage` itself (e.g. `storage.get()`). SQLite can be enabled on a new Durable Object class by using the `new_sqlite_classes` instead of `new_classes` under `migrations` in your wrangler.jsonc or wrangler.toml, but an already-deployed class cannot be converted to SQLite (except by deleting the existing data)."

export const NO_RECOVERY_ON_KV_BACKEND =
  "This Durable Object's storage back-end does not implement point-in-time recovery."

export const DELETE_ALL_IN_TRANSACTION = 'Cannot call deleteAll() within a transaction'

export const STORAGE_CLOSED = 'Durable Object storage is no longer accessible.'

export const USE_TRANSACTION_API =
  "To execute a transaction, please use the state.storage.transaction() or state.storage.transactionSync() APIs instead of the SQL BEGIN TRANSACTION or SAVEPOINT statements. The JavaScript API is safer because it will automatically roll back on exceptions, and because it interacts correctly with Durable Objects' automatic atomic write coalescing."

export const CONSTRAINT_RESET_PREFIX =
  'Durable Object was reset and rolled back to its last known good state because the application left the database in a state where constraints were violated: '
