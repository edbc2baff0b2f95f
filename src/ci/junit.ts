import { xmlEscape } from '../quote/index.js';
import {
  type CheckSummary,
  type CiSummary,
  type FailureExcerpt,
  PHASES,
  type Phase,
  type UnitStatus,
} from './summary-types.js';

/**
 * The run as JUnit XML (Apache Ant's format, which CI systems read): one `<testsuite>` per phase
 * (provision, build, verify, teardown) plus `artifacts` (the secret scan); every task on every
 * host and every verify check is a `<testcase>` with its time; a failure names host, task, step,
 * the command that ran and the last lines of its output. Valid against Windy Road's JUnit.xsd
 * (github.com/windyroad/JUnit-Schema, the schema of the Ant JUnit and JUnitReport tasks), which
 * the tests validate it with.
 */
export function renderJunit(summary: CiSummary, options: { hostname: string }): string {
  const suites = [
    ...PHASES.map((phase) => ({ name: phase, cases: phaseCases(summary, phase) })),
    { name: 'artifacts', cases: [secretScanCase(summary)] },
  ];
  // The schema's timestamp has no zone and no fraction: UTC, to the second.
  const timestamp = summary.startedAt.slice(0, 19);
  const body = suites.map((suite, id) => {
    const count = (status: UnitStatus) => suite.cases.filter((c) => c.status === status).length;
    const time = suite.cases.reduce((sum, c) => sum + c.timeMs, 0);
    return [
      `  <testsuite name="${attr(`kubemix.${suite.name}`)}" package="kubemix" id="${id}" timestamp="${timestamp}"`,
      ` hostname="${attr(options.hostname)}" tests="${suite.cases.length}" failures="${count('failed')}"`,
      ` errors="${count('error')}" skipped="${count('skipped')}" time="${seconds(time)}">\n`,
      `    <properties>\n${properties(summary)
        .map(([name, value]) => `      <property name="${attr(name)}" value="${attr(value)}"/>\n`)
        .join('')}    </properties>\n`,
      suite.cases.map(renderCase).join(''),
      '    <system-out/>\n    <system-err/>\n  </testsuite>\n',
    ].join('');
  });
  return `<?xml version="1.0" encoding="UTF-8"?>\n<testsuites>\n${body.join('')}</testsuites>\n`;
}

interface JunitCase {
  classname: string;
  name: string;
  timeMs: number;
  status: UnitStatus;
  /** failure / error: the one-line message and the excerpt; skipped: the reason. */
  message?: string;
  type?: string;
  text?: string;
}

function phaseCases(summary: CiSummary, phase: Phase): JunitCase[] {
  const cases: JunitCase[] = [];
  for (const task of summary.tasks.filter((t) => t.phase === phase)) {
    const classname = `kubemix.${phase}.${task.name}`;
    if (task.hosts.length === 0)
      cases.push({
        classname,
        name: task.name,
        timeMs: task.durationMs,
        status: task.status,
        ...(task.reason ? { message: task.reason, text: task.reason, type: task.status } : {}),
      });
    for (const host of task.hosts) {
      const name = `${task.name} on ${host.host}`;
      if (host.failure) cases.push(failureCase(classname, name, host.durationMs, host.status, host.failure));
      else
        cases.push({
          classname,
          name,
          timeMs: host.durationMs,
          status: host.status,
          ...(host.reason ? { message: host.reason } : {}),
        });
    }
  }
  if (phase === 'verify') cases.push(...summary.verify.checks.map(checkCase));
  if (phase === 'teardown' && summary.teardown.status === 'kept')
    cases.push({
      classname: 'kubemix.teardown',
      name: 'teardown',
      timeMs: 0,
      status: 'skipped',
      message: summary.teardown.message,
    });
  return cases;
}

function failureCase(
  classname: string,
  name: string,
  timeMs: number,
  status: UnitStatus,
  failure: FailureExcerpt,
): JunitCase {
  const text = [
    `host: ${failure.host}`,
    `task: ${failure.task}`,
    `step: ${failure.step}`,
    `ran: ${failure.command || '(nothing: the step could not start)'}`,
    `exit code: ${failure.exitCode ?? 'none'}`,
    failure.outputTail ? `last lines of output:\n${failure.outputTail}` : 'no output',
  ].join('\n');
  return { classname, name, timeMs, status, message: failure.message, type: failure.kind, text };
}

function checkCase(check: CheckSummary): JunitCase {
  const base = {
    classname: 'kubemix.verify.checks',
    name: `check ${check.check}`,
    timeMs: check.durationMs,
    status: check.status,
  };
  if (check.status === 'passed') return base;
  if (check.status === 'skipped') return { ...base, message: check.detail };
  return {
    ...base,
    message: `check ${check.check} failed: ${check.detail}`,
    type: 'check-failed',
    text: `check: ${check.check}\nran: ${check.command || '(no command)'}\nresult: ${check.detail}`,
  };
}

function secretScanCase(summary: CiSummary): JunitCase {
  const { findings, filesScanned } = summary.secretScan;
  const base = { classname: 'kubemix.artifacts', name: 'secret scan', timeMs: 0 };
  if (findings.length === 0) return { ...base, status: 'passed' };
  return {
    ...base,
    status: 'failed',
    type: 'secret-found',
    message: `${findings.length} secret(s) found in ${filesScanned} artifact files and redacted`,
    text: findings.map((f) => `${f.file}:${f.line}: ${f.kind}`).join('\n'),
  };
}

function renderCase(c: JunitCase): string {
  const open = `    <testcase name="${attr(c.name)}" classname="${attr(c.classname)}" time="${seconds(c.timeMs)}"`;
  if (c.status === 'passed') return `${open}/>\n`;
  const message = c.message !== undefined ? ` message="${attr(c.message)}"` : '';
  if (c.status === 'skipped') return `${open}>\n      <skipped${message}/>\n    </testcase>\n`;
  const element = c.status === 'failed' ? 'failure' : 'error';
  return `${open}>\n      <${element}${message} type="${attr(c.type ?? c.status)}">${text(c.text ?? '')}</${element}>\n    </testcase>\n`;
}

function properties(summary: CiSummary): [string, string][] {
  return [
    ['cluster', summary.cluster],
    ['spec', summary.spec],
    ['outcome', summary.outcome],
    ['kubemix', summary.versions['kubemix'] ?? ''],
    ['kubernetes', summary.versions['kubernetes'] ?? ''],
  ];
}

const seconds = (ms: number) => (Math.max(0, ms) / 1000).toFixed(3);

// XML 1.0 allows tab, LF, CR and U+0020 and up, but not lone surrogates nor U+FFFE/FFFF: command
// output may carry terminal escapes, which would make the whole file unreadable. (U+007F-U+009F
// are legal but discouraged: they go too.)
const NOT_XML_CHAR = /(?![\t\n\r])[\p{Cc}\p{Cs}\uFFFE\uFFFF]/gu;

/** Text made legal in XML 1.0 and escaped for element content. */
const text = (value: string) => xmlEscape(value.replace(NOT_XML_CHAR, '\uFFFD'));
/** An attribute value: also keeps its line breaks (attribute normalisation would turn them into spaces). */
const attr = (value: string) =>
  text(value).replace(/\r/g, '&#13;').replace(/\n/g, '&#10;').replace(/\t/g, '&#9;');
