// The peer of encc_splade.py: ONNX Runtime (onnxruntime-node, CPU, set up
// as bench/node/peer.js does) runs the exported SPLADE graph on the same
// token ids (mask 1, types 0), ROUNDS times after one warm run; prints the
// median milliseconds per run and the process's peak RSS (VmHWM).
//
//   node ort_splade.js MODEL.onnx IDS.i32 BATCH SEQ THREADS ROUNDS [OUT.f32]
'use strict';
const fs = require('fs');
const path = require('path');
const { ort, median, now, createSession, cliArgs } = require(path.join(__dirname, '..', 'node', 'peer.js'));

async function main() {
  const [modelPath, idsPath, batchArg, seqArg, threadsArg, roundsArg, outPath] = cliArgs(
    'ort_splade.js', ['MODEL', 'IDS', 'BATCH', 'SEQ', 'THREADS', 'ROUNDS'], ['OUT']);
  const b = Number(batchArg), s = Number(seqArg), threads = Number(threadsArg);
  const rounds = Number(roundsArg);
  const buf = fs.readFileSync(idsPath);
  const ids32 = new Int32Array(buf.buffer.slice(buf.byteOffset, buf.byteOffset + buf.length));
  const ids = BigInt64Array.from(ids32, (v) => BigInt(v));
  const mask = new BigInt64Array(b * s).fill(1n), types = new BigInt64Array(b * s);
  const session = await createSession(modelPath, threads);
  const feeds = {
    input_ids: new ort.Tensor('int64', ids, [b, s]),
    attention_mask: new ort.Tensor('int64', mask, [b, s]),
    token_type_ids: new ort.Tensor('int64', types, [b, s]),
  };
  let out = await session.run(feeds);  // warm
  const ms = [];
  for (let r = 0; r < rounds; ++r) {
    const t0 = now();
    out = await session.run(feeds);
    ms.push(now() - t0);
  }
  // VmHWM, not maxRSS: the latter survives exec (the parent's peak).
  const status = fs.readFileSync('/proc/self/status', 'utf8');
  const peak = Math.floor(Number(/VmHWM:\s+(\d+)/.exec(status)[1]) / 1024);
  console.log(`ort ${b}x${s}, ${threads} threads: forward ${median(ms).toFixed(3)} ms ` +
    `(median of ${rounds} rounds), peak RSS ${peak} MiB`);
  if (outPath) {
    const y = out[session.outputNames[0]].data;
    fs.writeFileSync(outPath, Buffer.from(y.buffer, y.byteOffset, y.byteLength));
  }
}
main().catch((e) => { console.error(e); process.exit(1); });
