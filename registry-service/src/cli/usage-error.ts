/** A command line that cannot be run: printed with the usage, exit code 2. */
export class UsageError extends Error {
  override readonly name = 'UsageError';
}

/** A flag's `true` or `false`. */
export function booleanFlag(flag: string, value: string | undefined): boolean {
  if (value === 'true') return true;
  if (value === 'false') return false;
  throw new UsageError(`--${flag} must be true or false`);
}
