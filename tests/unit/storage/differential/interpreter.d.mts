import type { Operation, OperationResult } from './miniflare-oracle'

export function runOperations(
  storage: unknown,
  operations: Operation[],
  root?: unknown,
): Promise<OperationResult[]>
