/**
 * A command refused before anything ran (bad arguments, an unknown command, a file to read that is
 * not there): the program prints its message and exits 2, as the README's exit codes say.
 */
export class UsageError extends Error {}
