/** Defaults the command line names in its help, kept apart so that `--help` loads nothing else. */
export const DEFAULT_HTTP_PORT = 8931;
