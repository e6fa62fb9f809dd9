import type { CodeOf, ValidationErrors } from '@policyhub/errors';

/** Policy and policy set names: letters, digits, `-` and `_` (the spec's rule). */
export const NAME_PATTERN = /^[A-Za-z0-9_-]+$/;
export const NAME_MAX_LENGTH = 128;
/** The field name errors about a name are reported at. */
export const NAME_POINTER = 'name';

export function checkName(errors: ValidationErrors, code: CodeOf<'invalid'>, name: string): void {
  if (name.trim() === '') errors.add(code, NAME_POINTER, "Name can't be blank");
  else if (name.length > NAME_MAX_LENGTH) {
    errors.add(code, NAME_POINTER, `Name is too long (maximum is ${NAME_MAX_LENGTH} characters)`);
  } else if (!NAME_PATTERN.test(name)) {
    errors.add(code, NAME_POINTER, 'Name is invalid: only letters, numbers, - and _ are allowed');
  }
}
