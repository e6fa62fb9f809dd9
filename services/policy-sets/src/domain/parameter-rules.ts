import { ValidationErrors } from '@policyhub/errors';

/** The only category of a policy set parameter (upstream's `vars` share the resource with workspaces'). */
export const PARAMETER_CATEGORY = 'policy-set';
export const PARAMETER_KEY_MAX_LENGTH = 128;
/** Sentinel params are small values (strings, JSON); this bounds a set's parameters in a check. */
export const PARAMETER_VALUE_MAX_BYTES = 64 * 1024;

/** A parameter as stored, its value in the clear (sealing is the use case's concern). */
export interface ParameterFields {
  key: string;
  value: string;
  sensitive: boolean;
}

/** What a client sent; undefined = not given. */
export interface ParameterInput {
  key?: string | undefined;
  value?: string | undefined;
  category?: string | undefined;
  sensitive?: boolean | undefined;
}

/** Validates a new parameter: a key, a value (default ""), the one category, sensitive or not. */
export function resolveNewParameter(input: ParameterInput): ParameterFields {
  return resolve(undefined, input);
}

/**
 * Applies a change; absent fields keep their values. `sensitive` is write-once: once true it
 * stays true (the value is never answered again).
 */
export function resolveParameterUpdate(current: ParameterFields, input: ParameterInput): ParameterFields {
  return resolve(current, input);
}

function resolve(current: ParameterFields | undefined, input: ParameterInput): ParameterFields {
  const errors = new ValidationErrors();
  const key = input.key ?? current?.key ?? '';
  if (input.key !== undefined || !current) {
    if (key.trim() === '') errors.add('POLICY_SETS_INVALID_PARAMETER_KEY', 'key', "Key can't be blank");
    else if (key.length > PARAMETER_KEY_MAX_LENGTH)
      errors.add(
        'POLICY_SETS_INVALID_PARAMETER_KEY',
        'key',
        `Key is too long (maximum is ${PARAMETER_KEY_MAX_LENGTH} characters)`,
      );
  }
  if (input.category !== undefined && input.category !== PARAMETER_CATEGORY) {
    errors.add(
      'POLICY_SETS_INVALID_PARAMETER_CATEGORY',
      'category',
      `Category must be ${PARAMETER_CATEGORY} for policy set parameters`,
    );
  }
  const value = input.value ?? current?.value ?? '';
  // Never echo the value: it may be sensitive.
  if (Buffer.byteLength(value, 'utf8') > PARAMETER_VALUE_MAX_BYTES) {
    errors.add(
      'POLICY_SETS_INVALID_PARAMETER_VALUE',
      'value',
      `Value is too long (maximum is ${PARAMETER_VALUE_MAX_BYTES} bytes)`,
    );
  }
  if (current?.sensitive && input.sensitive === false) {
    errors.add(
      'POLICY_SETS_PARAMETER_SENSITIVE_WRITE_ONCE',
      'sensitive',
      'A sensitive parameter cannot be made non-sensitive; delete it and create it again',
    );
  }
  errors.throwIfAny();
  return { key, value, sensitive: current?.sensitive === true || input.sensitive === true };
}
