import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { Writable } from 'node:stream';
import pino from 'pino';
import { relayChildLine, relayChildOutput } from '../../../src/cli/operator/child-log.ts';

/** A pino logger writing into an array of raw lines. */
function captured(): { logger: pino.Logger; lines: string[] } {
  const lines: string[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(
        ...chunk
          .toString()
          .split('\n')
          .filter((l) => l !== ''),
      );
      done();
    },
  });
  return { logger: pino({ level: 'info' }, sink), lines };
}

/** Each line is one JSON object whose keys appear once. */
function objects(lines: string[]): Record<string, unknown>[] {
  return lines.map((line) => {
    const keys = [...line.matchAll(/"([a-zA-Z]+)":/g)].map((m) => m[1]);
    const top = Object.keys(JSON.parse(line) as object);
    assert.equal(keys.filter((k) => k === 'time').length, 1, `one time field: ${line}`);
    assert.ok(top.every((k) => keys.filter((x) => x === k).length >= 1));
    return JSON.parse(line) as Record<string, unknown>;
  });
}

test("relays a child's JSON log line as one object, with its level and fields kept", () => {
  const { logger, lines } = captured();
  const child = {
    level: 40,
    time: 1,
    pid: 77,
    hostname: 'h',
    source: 'us-fda-food',
    reason: 'HTTP 503',
    msg: 'source failed',
  };
  relayChildLine(logger, JSON.stringify(child), { child: 'ingest', childPid: 77, stream: 'stderr' });
  relayChildLine(logger, 'us-nhtsa: ok, 3 records', { child: 'ingest', stream: 'stdout' });
  relayChildLine(logger, '{not json', { child: 'ingest', stream: 'stderr' });
  relayChildLine(logger, '   ', { child: 'ingest', stream: 'stderr' });
  const [failed, summary, broken, ...rest] = objects(lines);
  assert.deepEqual(rest, []);
  assert.equal(failed!.level, 40);
  assert.equal(failed!.msg, 'source failed');
  assert.equal(failed!.source, 'us-fda-food');
  assert.equal(failed!.reason, 'HTTP 503');
  assert.equal(failed!.child, 'ingest');
  assert.equal(failed!.childPid, 77);
  assert.equal(failed!.stream, 'stderr');
  assert.equal(typeof failed!.ingest, 'undefined', 'not wrapped as a string');
  assert.equal(summary!.level, 30);
  assert.equal(summary!.msg, 'us-nhtsa: ok, 3 records');
  assert.equal(broken!.level, 40);
  assert.equal(broken!.msg, '{not json');
});

test("relays a real child's output line by line, whatever its chunks", async () => {
  const { logger, lines } = captured();
  const script = [
    "process.stderr.write(JSON.stringify({level:50,time:2,pid:process.pid,msg:'source failed',err:{type:'Error',message:'boom',stack:'Error: boom'}}).slice(0,20));",
    "setTimeout(() => { process.stderr.write(JSON.stringify({level:50,time:2,pid:process.pid,msg:'source failed',err:{type:'Error',message:'boom',stack:'Error: boom'}}).slice(20) + '\\n');",
    "console.log('us-cpsc: ok'); console.log('us-nhtsa: ok'); }, 20);",
  ].join('\n');
  const child = spawn(process.execPath, ['-e', script], { stdio: ['ignore', 'pipe', 'pipe'] });
  relayChildOutput(logger, child.stdout, { child: 'ingest', childPid: child.pid!, stream: 'stdout' });
  relayChildOutput(logger, child.stderr, { child: 'ingest', childPid: child.pid!, stream: 'stderr' });
  await once(child, 'close');
  const relayed = objects(lines);
  assert.equal(relayed.length, 3);
  const failed = relayed.find((r) => r.stream === 'stderr')!;
  assert.equal(failed.level, 50);
  assert.equal(failed.msg, 'source failed');
  assert.deepEqual(failed.err, { type: 'Error', message: 'boom', stack: 'Error: boom' });
  assert.equal(failed.childPid, child.pid);
  assert.deepEqual(
    relayed.filter((r) => r.stream === 'stdout').map((r) => r.msg),
    ['us-cpsc: ok', 'us-nhtsa: ok'],
  );
});
