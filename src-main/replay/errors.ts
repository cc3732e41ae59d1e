// The replay input's refusals (400s, before or while requests are read).

/** The input is in none of the formats a replay reads, and no format was named. */
export const REPLAY_FORMAT_UNKNOWN = 10510
/** A format name that is not one of REPLAY_FORMATS. */
export const REPLAY_FORMAT_INVALID = 10511
/** A line (or a HAR entry) larger than a replay reads. */
export const REPLAY_LINE_TOO_LONG = 10512
/** A line that is not JSON, in a JSON-lines format (the vendor's malformed-JSON code). */
export const REPLAY_NOT_JSON = 6007
/** A line or entry that is JSON but not a request of its format. */
export const REPLAY_NOT_A_REQUEST = 1001
