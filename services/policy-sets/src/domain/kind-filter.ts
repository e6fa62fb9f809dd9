import { AppError } from '@policyhub/errors';
import { isKind } from './vocabulary.js';

/** `filter[kind]` of the list endpoints: empty (every kind) or one of the spec's kinds. */
export function checkKindFilter(kind: string): void {
  if (kind !== '' && !isKind(kind)) {
    throw new AppError('invalid', 'POLICY_SETS_INVALID_FILTER', [
      {
        title: 'invalid attribute',
        detail: 'filter[kind] must be kind_a or kind_b',
        field: 'filter.kind',
      },
    ]);
  }
}
