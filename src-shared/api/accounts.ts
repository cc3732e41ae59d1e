// The account as the vendor's Accounts API shows it (`GET /accounts`, `GET /accounts/{id}`), for
// the workbench's one account. Only what the workbench can answer truthfully is in it: its id and
// name, the vendor's `standard` type and the settings' documented defaults. `created_on` is left
// out (the vendor's schema makes it optional): the workbench does not record when a data folder's
// account began, and a made-up time would be read as a real one. Sources: the OpenAPI document's
// `iam_account` schema and `accounts-list-accounts` operation (https://github.com/cloudflare/api-schemas);
// the SDK's `Account` and `AccountListParams`
// (https://github.com/cloudflare/cloudflare-typescript/blob/main/src/resources/accounts/accounts.ts).

import { Type, type Static } from 'typebox'

export const ACCOUNT_TYPES = ['standard', 'enterprise'] as const
export type AccountType = (typeof ACCOUNT_TYPES)[number]

export interface AccountSettings {
  /** Whether members must use two-factor authentication; the workbench has no members. */
  enforce_twofactor: boolean
}

export interface Account {
  id: string
  name: string
  type: AccountType
  settings: AccountSettings
}

/** The settings an account has until changed: the `default`s of the OpenAPI `iam_account` schema. */
export const DEFAULT_ACCOUNT_SETTINGS: AccountSettings = { enforce_twofactor: false }

/** The page sizes of `GET /accounts` (the OpenAPI document's `per_page`: 5–50, 20 by default). */
export const ACCOUNTS_PER_PAGE = { default: 20, minimum: 5, maximum: 50 }

/**
 * The search and order of `GET /accounts`, page aside. `name` is the account's whole name, case
 * and all (the vendor documents no operators for it, so none are read: `name=starts_with:x` names
 * an account called that); `direction` orders by name.
 */
export const AccountListSearch = Type.Object({
  name: Type.Optional(Type.String()),
  direction: Type.Optional(Type.Enum(['asc', 'desc'])),
})
export type AccountListSearch = Static<typeof AccountListSearch>
