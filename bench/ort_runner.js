// ONNX Runtime (onnxruntime-node, CPU) side of bench/e2e.py.
//   node ort_runner.js MODEL.onnx THREADS
// Session: graphOptimizationLevel 'all', intraOpNumThreads THREADS,
// interOpNumThreads 1, sequential execution. Same stdin protocol as
// encc_runner.cpp:
//   case B S INPUT.f32 LENGTHS.i32|- [OUT.f32|-] -> "ok 0"
//   run N -> "times T1..TN cpu CPU_S wall WALL_S"
//   quit
'use strict';
const fs = require('fs');
const path = require('path');
const readline = require('readline');
const ort = require(path.join(__dirname, 'node', 'node_modules', 'onnxruntime-node'));

function readTyped(file, Type) {
  const buf = fs.readFileSync(file);
  const copy = buf.buffer.slice(buf.byteOffset, buf.byteOffset + buf.length);
  return new Type(copy);
}

function cpuSeconds() {
  const u = process.cpuUsage();
  return (u.user + u.system) * 1e-6;
}

async function main() {
  const [modelPath, threadsArg] = process.argv.slice(2);
  if (!modelPath || !threadsArg) {
    process.stderr.write('usage: node ort_runner.js MODEL.onnx THREADS\n');
    process.exit(2);
  }
  const threads = parseInt(threadsArg, 10);
  const t0 = process.hrtime.bigint();
  const session = await ort.InferenceSession.create(modelPath, {
    graphOptimizationLevel: 'all',
    intraOpNumThreads: threads,
    interOpNumThreads: 1,
    executionMode: 'sequential',
  });
  const loadMs = Number(process.hrtime.bigint() - t0) * 1e-6;
  process.stdout.write(`loaded ${loadMs.toFixed(3)} ${threads}\n`);

  let feeds = null;
  const rl = readline.createInterface({ input: process.stdin, terminal: false });
  for await (const line of rl) {
    const a = line.trim().split(/\s+/);
    if (a[0] === '') continue;
    if (a[0] === 'case') {
      const b = parseInt(a[1], 10), s = parseInt(a[2], 10);
      const x = readTyped(a[3], Float32Array);
      const d = x.length / (b * s);
      const mask = new Uint8Array(b * s);
      if (a[4] !== '-') {
        const lens = readTyped(a[4], Int32Array);
        for (let i = 0; i < b; ++i)
          for (let j = lens[i]; j < s; ++j) mask[i * s + j] = 1;
      }
      feeds = {
        x: new ort.Tensor('float32', x, [b, s, d]),
        mask: new ort.Tensor('bool', mask, [b, s]),
      };
      const out = await session.run(feeds);
      if (a.length > 5 && a[5] !== '-') {
        const y = out[session.outputNames[0]].data;
        fs.writeFileSync(a[5], Buffer.from(y.buffer, y.byteOffset, y.byteLength));
      }
      process.stdout.write('ok 0\n');
    } else if (a[0] === 'run') {
      const n = parseInt(a[1], 10);
      const ms = [];
      const c0 = cpuSeconds();
      const w0 = process.hrtime.bigint();
      for (let i = 0; i < n; ++i) {
        const t = process.hrtime.bigint();
        await session.run(feeds);
        ms.push(Number(process.hrtime.bigint() - t) * 1e-6);
      }
      const wall = Number(process.hrtime.bigint() - w0) * 1e-9;
      const cpu = cpuSeconds() - c0;
      process.stdout.write(
        `times ${ms.map((v) => v.toFixed(6)).join(' ')} cpu ${cpu.toFixed(6)} wall ${wall.toFixed(6)}\n`);
    } else if (a[0] === 'quit') {
      break;
    } else {
      process.stderr.write(`ort_runner: unknown command ${a[0]}\n`);
      process.exit(2);
    }
  }
  await session.release();
  process.exit(0);
}

main().catch((e) => {
  process.stderr.write(`ort_runner: ${e && e.stack ? e.stack : e}\n`);
  process.exit(3);
});
