/**
 * The one exit-code table of every kubemix command (`run` included), printed by `kubemix --help`.
 * Codes follow what users of kubectl, kind and shells expect: 1 for a failure, 2 for bad usage
 * (as getopt-style tools do), 128 + SIGINT's number for an interrupted run.
 */
export const EXIT_CODES = {
  ok: { code: 0, meaning: 'done (a run stopped where --stop-after/--stop-before asked is done too)' },
  failed: {
    code: 1,
    meaning: 'a task, host, check or command failed (run: a host failed or was unreachable)',
  },
  badInput: {
    code: 2,
    meaning:
      'bad input: an unknown command or flag, a bad value, spec, playbook or inventory; nothing was made',
  },
  timedOut: { code: 3, meaning: 'the time budget ran out (ci --timeout); ci tore the cluster down' },
  leftBehind: {
    code: 4,
    meaning: 'ci: the teardown failed or was stopped, resources may be left behind (wins over 1, 3 and 130)',
  },
  internalError: { code: 70, meaning: 'a bug in kubemix: please report it with the command you ran' },
  interrupted: {
    code: 130,
    meaning: 'interrupted by Ctrl-C or SIGTERM: state is recorded, the same command resumes',
  },
} as const satisfies Record<string, { code: number; meaning: string }>;

/** The name of one row of {@link EXIT_CODES}. */
export type ExitCodeName = keyof typeof EXIT_CODES;

/** Just the codes of {@link EXIT_CODES}, for `return EXIT.failed`. */
export const EXIT = Object.fromEntries(Object.entries(EXIT_CODES).map(([name, row]) => [name, row.code])) as {
  readonly [K in ExitCodeName]: (typeof EXIT_CODES)[K]['code'];
};
