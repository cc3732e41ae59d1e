// What a run of the CRS program (interpreter.ts) takes and answers: the level and the disabled
// rules in; the scoring rules' matches and the anomaly score out, for the engine and its trace.

/** What a scoring rule did to one request, for the trace. */
export interface CrsMatch {
  crsId: number
  /** the variable that matched, as ModSecurity names it (`ARGS:q`) */
  variable: string
  /** its value after the rule's transformations */
  value: string
  /** what the operator matched (TX:0 where it captures), else the value */
  match: string
  /** what the rule added to the anomaly score, over all its matches */
  score: number
}

export interface CrsResult {
  /** the scoring rules that added to the score, by CRS id, in the order they ran */
  matches: Map<number, CrsMatch>
  /** tx.anomaly_score after REQUEST-949 (the levels up to the paranoia level) */
  anomalyScore: number
}

export interface CrsRunOptions {
  /** tx.paranoia_level and tx.executing_paranoia_level */
  paranoiaLevel: number
  /** CRS ids of rules that must neither run nor score */
  disabled: ReadonlySet<number>
}
